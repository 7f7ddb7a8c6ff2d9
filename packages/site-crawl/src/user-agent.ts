/** The product token robots.txt groups name us by (`User-agent: GleanerBot`). */
export const CRAWLER_PRODUCT_TOKEN = 'GleanerBot';

/**
 * The User-Agent of every request a crawl or map makes (a single scrape still looks like a
 * browser): a crawler names itself, so that a site can tell it apart and address it in robots.txt.
 */
export function crawlerUserAgent(infoUrl?: string): string {
  return `Mozilla/5.0 (compatible; ${CRAWLER_PRODUCT_TOKEN}/1.0${infoUrl ? `; +${infoUrl}` : ''})`;
}
