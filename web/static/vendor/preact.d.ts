// Types of the parts of preact.js the app uses (the package's own types describe JSX, which the app,
// written with htm, does not use).
export type VNode = { type: any; props: any; key?: any };
export type ComponentChild = VNode | string | number | bigint | boolean | null | undefined | ComponentChild[];
export function h(type: any, props?: any, ...children: any[]): VNode;
export function render(vnode: ComponentChild, parent: Element): void;
export const Fragment: any;
export function createContext<T>(value: T): { Provider: any; Consumer: any; _v?: T };
