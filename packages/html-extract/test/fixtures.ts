/** A whole HTML document around a body (and optional head) fragment. */
export const page = (body: string, head = '') => `<!doctype html><html lang="en"><head>${head}</head><body>${body}</body></html>`;

/** An article long enough for Readability to take it as the main content. */
export const article = (paragraphs = 6) =>
  Array.from(
    { length: paragraphs },
    (_, i) => `<p>Paragraph ${i} of a long enough article body that Readability will pick it up as the main content of this page, with several sentences.</p>`,
  ).join('');
