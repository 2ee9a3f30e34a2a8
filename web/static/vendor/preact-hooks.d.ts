// Types of preact/hooks, as the package declares them.
type Dispatch<A> = (value: A) => void;
type StateUpdater<S> = S | ((prev: S) => S);
export function useState<S>(initial: S | (() => S)): [S, Dispatch<StateUpdater<S>>];
export function useState<S = undefined>(): [S | undefined, Dispatch<StateUpdater<S | undefined>>];
export function useEffect(effect: () => void | (() => void), inputs?: ReadonlyArray<unknown>): void;
export function useLayoutEffect(effect: () => void | (() => void), inputs?: ReadonlyArray<unknown>): void;
export function useRef<T>(initial: T): { current: T };
export function useRef<T = undefined>(): { current: T | undefined };
export function useMemo<T>(factory: () => T, inputs: ReadonlyArray<unknown> | undefined): T;
export function useCallback<T extends Function>(callback: T, inputs: ReadonlyArray<unknown>): T;
export function useContext<T>(context: { _v?: T }): T;
export function useErrorBoundary(callback?: (error: any) => void): [any, () => void];
