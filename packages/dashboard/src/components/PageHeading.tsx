import { type ReactNode, useEffect, useRef } from 'react';
import { hasNavigated } from '../router.ts';

/** The page's h1: sets the document title and, after an in-app navigation, takes focus (screen readers, keyboard). */
export function PageHeading({ children, title }: { children: ReactNode; title: string }) {
  const ref = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    document.title = `${title} · Agent Wallet`;
  }, [title]);
  useEffect(() => {
    if (hasNavigated()) ref.current?.focus({ preventScroll: false });
  }, []);
  return (
    <h1 ref={ref} tabIndex={-1} className="page-title">
      {children}
    </h1>
  );
}
