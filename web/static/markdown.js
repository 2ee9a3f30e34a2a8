// @ts-check
// Markdown to Preact elements. Safe by construction: the text becomes text nodes and the only elements
// are the ones below, so no HTML in the source ever becomes markup; links keep http(s), mailto and
// same-origin targets only. It covers what notes and card descriptions use: headings, paragraphs, lists,
// quotes, fenced code, rules, and inline code, bold, italic and links.
import { h } from './vendor/preact.js';

/** @param {string} url */
function safeURL(url) {
  const u = url.trim();
  if (/^(https?:|mailto:)/i.test(u)) return u;
  if (u.startsWith('/') && !u.startsWith('//')) return u;
  if (u.startsWith('#')) return u;
  return null;
}

const inlineRe = /(`+)([^`]+?)\1|\*\*([^*]+?)\*\*|__([^_]+?)__|\*([^*\s][^*]*?)\*|_([^_\s][^_]*?)_|\[([^\]]+)\]\(([^)\s]+)\)/;

/** @param {string} text @returns {any[]} */
export function inline(text) {
  /** @type {any[]} */
  const out = [];
  let rest = text;
  while (rest) {
    const m = inlineRe.exec(rest);
    if (!m) { out.push(rest); break; }
    if (m.index > 0) out.push(rest.slice(0, m.index));
    if (m[2] !== undefined) out.push(h('code', null, m[2]));
    else if (m[3] !== undefined || m[4] !== undefined) out.push(h('strong', null, inline(m[3] ?? m[4])));
    else if (m[5] !== undefined || m[6] !== undefined) out.push(h('em', null, inline(m[5] ?? m[6])));
    else {
      const url = safeURL(m[8]);
      out.push(url ? h('a', { href: url, rel: 'noopener noreferrer', target: url.startsWith('/') || url.startsWith('#') ? undefined : '_blank' }, inline(m[7])) : m[0]);
    }
    rest = rest.slice(m.index + m[0].length);
  }
  return out;
}

/** @param {string} src @returns {any[]} the blocks, as Preact elements */
export function markdown(src) {
  const lines = (src || '').replace(/\r\n?/g, '\n').split('\n');
  /** @type {any[]} */
  const out = [];
  let i = 0;
  /** @type {string[]} */
  let para = [];
  const flush = () => {
    if (para.length) out.push(h('p', null, inline(para.join(' '))));
    para = [];
  };
  while (i < lines.length) {
    const line = lines[i];
    let m;
    if (/^\s*```/.test(line)) {
      flush();
      const code = [];
      i++;
      while (i < lines.length && !/^\s*```/.test(lines[i])) code.push(lines[i++]);
      i++;
      out.push(h('pre', null, h('code', null, code.join('\n'))));
      continue;
    }
    if ((m = /^(#{1,6})\s+(.*)$/.exec(line))) {
      flush();
      // Headings inside a document start at h3: the page has its own h1 and h2.
      out.push(h('h' + Math.min(6, m[1].length + 2), null, inline(m[2])));
      i++;
      continue;
    }
    if (/^\s*([-*_])(\s*\1){2,}\s*$/.test(line)) { flush(); out.push(h('hr', null)); i++; continue; }
    if (/^\s*>/.test(line)) {
      flush();
      const q = [];
      while (i < lines.length && /^\s*>/.test(lines[i])) q.push(lines[i++].replace(/^\s*>\s?/, ''));
      out.push(h('blockquote', null, markdown(q.join('\n'))));
      continue;
    }
    if ((m = /^\s*([-*+]|\d+[.)])\s+/.exec(line))) {
      flush();
      const ordered = /\d/.test(m[1]);
      const items = [];
      while (i < lines.length && (m = /^\s*([-*+]|\d+[.)])\s+(.*)$/.exec(lines[i])) && /\d/.test(m[1]) === ordered) {
        const t = m[2];
        const task = /^\[( |x|X)\]\s+(.*)$/.exec(t);
        items.push(task
          ? h('li', null, h('input', { type: 'checkbox', checked: task[1] !== ' ', disabled: true, 'aria-label': task[1] !== ' ' ? 'done' : 'not done' }), ' ', inline(task[2]))
          : h('li', null, inline(t)));
        i++;
      }
      out.push(h(ordered ? 'ol' : 'ul', null, items));
      continue;
    }
    if (!line.trim()) { flush(); i++; continue; }
    para.push(line.trim());
    i++;
  }
  flush();
  return out;
}

const entities = /** @type {Record<string,string>} */ ({ '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#39;': "'", '&#34;': '"' });

/**
 * A search snippet: HTML-escaped text whose only markup is <mark></mark> around the matched words.
 * Rendered as text with <mark> elements, never as HTML.
 * @param {string} snippet
 */
export function snippet(snippet) {
  return snippet.split(/(<mark>.*?<\/mark>)/g).filter(Boolean).map((part) => {
    const marked = /^<mark>(.*)<\/mark>$/.exec(part);
    const text = (marked ? marked[1] : part).replace(/&(amp|lt|gt|quot|#39|#34);/g, (e) => entities[e]);
    return marked ? h('mark', null, text) : text;
  });
}
