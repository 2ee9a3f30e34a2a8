// Types of htm.js (htm's own dist/htm.d.ts).
declare const htm: {
  bind<HResult>(h: (type: any, props: Record<string, any>, ...children: any[]) => HResult):
    (strings: TemplateStringsArray, ...values: any[]) => HResult | HResult[];
};
export default htm;
