/**
 * Hash routing (`#/passes/<id>`): the server serves one `index.html` and needs no fallback route;
 * the hash never reaches the server or its logs.
 */
import { useEffect, useState } from 'react';

/** The current route's path segments, e.g. `['passes', '0194…']`, and its query. */
export interface Route {
  segments: string[];
  query: URLSearchParams;
}

function read(): Route {
  const [path = '', query = ''] = window.location.hash.replace(/^#/, '').split('?');
  return { segments: path.split('/').filter(Boolean).map(decodeURIComponent), query: new URLSearchParams(query) };
}

/** The route, updated on `hashchange`. */
export function useRoute(): Route {
  const [route, setRoute] = useState(read);
  useEffect(() => {
    const onChange = () => setRoute(read());
    window.addEventListener('hashchange', onChange);
    return () => window.removeEventListener('hashchange', onChange);
  }, []);
  return route;
}

/** Goes to a route (`/passes/123`). */
export function navigate(path: string): void {
  window.location.hash = `#${path}`;
}

/** The `href` of a route. */
export const href = (path: string): string => `#${path}`;
