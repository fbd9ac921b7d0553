import type { AnchorHTMLAttributes, MouseEvent } from 'react';
import { Link as RouterLink, useLocation } from 'wouter';
import { noteNavigation } from '../router.ts';

interface LinkProps extends Omit<AnchorHTMLAttributes<HTMLAnchorElement>, 'href'> {
  to: string;
  /** Mark as the current page when the location matches (exactly, or by prefix). */
  match?: 'exact' | 'prefix';
}

/** A real link (middle-click, copy link address) that navigates without reloading (wouter). */
export function Link({ to, match, onClick, children, ...rest }: LinkProps) {
  const [path] = useLocation();
  const current = match === 'exact' ? path === to : match === 'prefix' ? path.startsWith(to) : false;
  return (
    <RouterLink
      href={to}
      onClick={(event: MouseEvent<HTMLAnchorElement>) => {
        onClick?.(event);
        if (!event.defaultPrevented) noteNavigation();
      }}
      aria-current={current ? 'page' : undefined}
      {...rest}
    >
      {children}
    </RouterLink>
  );
}
