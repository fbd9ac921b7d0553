import type { AnchorHTMLAttributes, MouseEvent } from 'react';
import { navigate, useLocation } from '../router.ts';

interface LinkProps extends Omit<AnchorHTMLAttributes<HTMLAnchorElement>, 'href'> {
  to: string;
  /** Mark as the current page when the location matches (exactly, or by prefix). */
  match?: 'exact' | 'prefix';
}

/** A real link (middle-click, copy link address) that navigates without reloading. */
export function Link({ to, match, onClick, children, ...rest }: LinkProps) {
  const location = useLocation();
  const path = location.split('?')[0] ?? location;
  const current = match === 'exact' ? path === to : match === 'prefix' ? path.startsWith(to) : false;
  function handleClick(event: MouseEvent<HTMLAnchorElement>) {
    onClick?.(event);
    if (event.defaultPrevented || event.button !== 0) return;
    if (event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    navigate(to);
  }
  return (
    <a href={to} onClick={handleClick} aria-current={current ? 'page' : undefined} {...rest}>
      {children}
    </a>
  );
}
