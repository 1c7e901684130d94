import { useEffect, useState } from 'preact/hooks';
import type { ComponentChildren, JSX } from 'preact';

export const BASE = '/console';

/** The page's path below /console ("" for the overview), without a trailing slash. */
function currentPage(): string {
  const path = location.pathname.startsWith(BASE) ? location.pathname.slice(BASE.length) : '';
  return path.replace(/^\/+|\/+$/g, '');
}

const listeners = new Set<() => void>();

export function navigate(page: string, replace = false): void {
  const url = `${BASE}/${page}`;
  if (replace) history.replaceState(null, '', url);
  else history.pushState(null, '', url);
  listeners.forEach((listener) => listener());
  window.scrollTo(0, 0);
}

export function usePage(): string {
  const [page, setPage] = useState(currentPage);
  useEffect(() => {
    const update = () => setPage(currentPage());
    listeners.add(update);
    window.addEventListener('popstate', update);
    return () => {
      listeners.delete(update);
      window.removeEventListener('popstate', update);
    };
  }, []);
  return page;
}

/** A link to a console page, followed without reloading (a modified click opens a new tab). */
export function Link(
  props: { page: string; children: ComponentChildren } & Omit<
    JSX.HTMLAttributes<HTMLAnchorElement>,
    'href'
  >,
) {
  const { page, children, ...rest } = props;
  return (
    <a
      {...rest}
      href={`${BASE}/${page}`}
      onClick={(event) => {
        if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey) return;
        event.preventDefault();
        navigate(page);
      }}
    >
      {children}
    </a>
  );
}
