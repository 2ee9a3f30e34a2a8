// Parses the iCalendar file named by the first argument with ical.js (an independent parser, pinned in
// package-lock.json) and prints its calendar name and events as JSON, for api/calendar_test.go.
import { readFileSync } from 'node:fs';
import ICAL from 'ical.js';

const text = readFileSync(process.argv[2], 'utf8');
const cal = new ICAL.Component(ICAL.parse(text));
const time = (t) => t ? { value: t.toString(), isDate: t.isDate, unix: t.isDate ? null : t.toUnixTime() } : null;
const events = cal.getAllSubcomponents('vevent').map((c) => {
  const e = new ICAL.Event(c);
  return {
    uid: e.uid,
    summary: e.summary,
    description: e.description ?? null,
    url: c.getFirstPropertyValue('url'),
    dtstamp: c.getFirstPropertyValue('dtstamp')?.toString() ?? null,
    start: time(e.startDate),
    end: c.hasProperty('dtend') ? time(e.endDate) : null,
  };
});
process.stdout.write(JSON.stringify({
  version: cal.getFirstPropertyValue('version'),
  prodid: cal.getFirstPropertyValue('prodid'),
  name: cal.getFirstPropertyValue('x-wr-calname'),
  events,
}));
