import { type ComponentType, useEffect, useState } from 'react';
import { ErrorNote, Loading } from '../components/notes';

/** A page's code, loaded the first time the page is shown (pageCode). */
export interface PageCode {
  loaded?: ComponentType;
  load(): Promise<ComponentType>;
}

/** The code `load` brings, once: a load that failed (a new release replaced the file) is tried again the next time. */
export function pageCode(load: () => Promise<{ default: ComponentType }>): PageCode {
  let loading: Promise<ComponentType> | undefined;
  const code: PageCode = {
    load: () => {
      loading ??= load().then(
        (module) => (code.loaded = module.default),
        (error: unknown) => {
          loading = undefined;
          throw error;
        },
      );
      return loading;
    },
  };
  return code;
}

/**
 * A page drawn the moment its code is here. React's `lazy` under a Suspense boundary would hold
 * every revealed page back until 300 ms after its fallback appeared (React 19 throttles reveals so
 * that fallbacks do not flash): a third of a second on each page's first view, its requests
 * waiting with it. Here the page's requests start as soon as its code has run.
 */
export function LazyPage({ code }: { code: PageCode }) {
  const [, setArrived] = useState<PageCode>();
  const [failed, setFailed] = useState<{ code: PageCode; error: unknown }>();
  useEffect(() => {
    if (!code.loaded)
      code.load().then(
        () => setArrived(code),
        (error: unknown) => setFailed({ code, error }),
      );
  }, [code]);
  if (code.loaded) {
    const Page = code.loaded;
    return <Page />;
  }
  if (failed?.code === code) return <ErrorNote error={failed.error} />;
  return <Loading what="the page" />;
}
