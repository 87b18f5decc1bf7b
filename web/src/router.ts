import { useEffect, useState } from 'preact/hooks';

/** A history-API router: the server answers index.html for every page path (see docs/dashboard.md). */
export function navigate(to: string, replace = false): void {
  if (replace) history.replaceState(null, '', to);
  else history.pushState(null, '', to);
  dispatchEvent(new Event('sf:navigate'));
}

export function useLocation(): URL {
  const [url, setUrl] = useState(() => new URL(location.href));
  useEffect(() => {
    const update = () => setUrl(new URL(location.href));
    addEventListener('popstate', update);
    addEventListener('sf:navigate', update);
    return () => {
      removeEventListener('popstate', update);
      removeEventListener('sf:navigate', update);
    };
  }, []);
  return url;
}

/** Same-origin links open inside the app; modified clicks, downloads and other origins behave normally. */
export function interceptLinks(): void {
  document.addEventListener('click', (e) => {
    if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    const a = (e.target as Element).closest?.('a');
    if (!a || a.target || a.hasAttribute('download') || a.dataset.external !== undefined) return;
    const url = new URL(a.href, location.href);
    if (url.origin !== location.origin) return;
    if (/^\/(v1|docs|dashboard\/api|assets)(\/|$)/.test(url.pathname)) return;
    e.preventDefault();
    navigate(url.pathname + url.search);
  });
}
