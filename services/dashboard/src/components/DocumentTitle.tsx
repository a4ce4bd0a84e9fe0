import { useEffect } from 'react';

const PRODUCT = 'Identity protection';

/** The tab's title for a page whose main heading reads `heading`. */
export function titleFor(heading: string | null | undefined): string {
  const text = heading?.replace(/\s+/g, ' ').trim();
  return text ? `${text} · ${PRODUCT}` : PRODUCT;
}

/**
 * Keeps the tab's title on the page's main heading (issue #32: every page had one title), however
 * the page draws it: after its data loads, or changed in place (a claim's name). Each page keeps its
 * heading as the one place that names it.
 */
export function DocumentTitle() {
  useEffect(() => {
    const update = (): void => {
      const title = titleFor(document.querySelector('main h1')?.textContent);
      if (document.title !== title) document.title = title;
    };
    update();
    const observer = new MutationObserver(update);
    observer.observe(document.body, { childList: true, subtree: true, characterData: true });
    return () => observer.disconnect();
  }, []);
  return null;
}
