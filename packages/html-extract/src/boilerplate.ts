/**
 * What page furniture looks like in markup, by the names authors give it (class, id, role): share
 * and follow bars, newsletter boxes, related and most-read lists, comments, cookie banners,
 * bylines and datelines, tag lists, image credits, ads. Names, not hosts: these words are the
 * vocabulary of CMS themes in every language the corpora hold (class names are English almost
 * everywhere), so they carry to pages never seen.
 */

/**
 * Whole tokens of a class or id (split at non-alphanumerics and camelCase humps) that name
 * furniture outright.
 */
const FURNITURE_TOKENS = new Set([
  // navigation
  'nav', 'navbar', 'navigation', 'menu', 'menubar', 'submenu', 'breadcrumb', 'breadcrumbs', 'crumbs', 'pagination', 'pager',
  'footer', 'sidebar', 'sidebars', 'toolbar',
  // share and follow
  'share', 'shares', 'sharing', 'social', 'sociable', 'addthis', 'sharethis', 'shariff', 'sharedaddy',
  // related and recommended
  'related', 'recommended', 'recommendations', 'recirculation', 'trending', 'mostread', 'outbrain', 'taboola', 'plista',
  // newsletter, subscription
  'newsletter', 'subscribe', 'subscription', 'signup',
  // disclaimers (embedded posts of social networks are quotes: see quotedContent)
  'disclaimer', 'disclosure',
  // consent and overlays
  'cookie', 'cookies', 'consent', 'gdpr', 'popup', 'modal', 'overlay',
  // ads
  'ad', 'ads', 'adv', 'advert', 'adverts', 'advertisement', 'advertising', 'adsense', 'sponsor', 'sponsored', 'promo', 'promotion',
]);

/** Comment sections: furniture however the name goes on. */
const COMMENT_TOKENS = new Set(['comment', 'comments', 'commentlist', 'disqus', 'respond', 'replies']);

/**
 * Tokens that name furniture only on small elements: themes also put them on the post itself
 * (WordPress writes `author-jane category-news` on the article, Blogger's posts live in
 * `widget Blog`), so they remove an element only when it holds little prose.
 */
const SMALL_FURNITURE_TOKENS = new Set([
  'widget', 'widgets', 'masthead', 'skip', 'print', 'email', 'follow', 'popular', 'login', 'register', 'registration', 'banner', 'notice',
  'byline', 'dateline', 'author', 'authors', 'meta', 'tags', 'tagcloud', 'tagline', 'categories', 'rating', 'credit', 'credits', 'copyright',
  'sronly', 'hidden', 'hide', 'invisible', 'offscreen',
]);

/** Compound names that tokens miss ("sharebar", "relatedposts", "visually-hidden"). */
const BOILERPLATE_SUBSTRING =
  /share(?:bar|box|tools|buttons|links)|social(?:media|links|bar|icons)|related(?:posts|articles|content|stories|links|news)|more-?(?:stories|articles|news)|most-?(?:read|popular|viewed|shared)|comment(?:list|form|section|area)|newsletter|cookie|screen-?reader|visually-?hidden|sr-only|read-?(?:also|more-?links)|jp-relatedposts|wp-?caption-?credit|post-?(?:meta|tags|footer|navigation)|entry-?(?:meta|footer|tags)|article-?(?:meta|footer|tags|tools)/;

/** An author box (`author-bio`), and a plain `author` (a byline), told from the `author-jane` class CMSs give the post itself. */
const AUTHOR_BOX = /^(?:[a-z]+-)?author-?(?:box|bio|info|profile|details|card|description|about)(?:$|[-_])/i;
const AUTHOR = /^(?:[a-z]+-)?author$/i;

/** ARIA roles of page furniture. */
const BOILERPLATE_ROLES = new Set(['navigation', 'banner', 'contentinfo', 'complementary', 'dialog', 'alertdialog', 'search', 'menu', 'menubar', 'toolbar', 'tablist']);

/**
 * Quoted content: a `<blockquote>` (an embedded tweet, toot, Instagram or Facebook post with
 * its "— name (@handle) date" line, or a quotation) is what the author put in the text, never
 * furniture by its name or its shape; where it stands outside the article, the choice of the
 * article leaves it out.
 */
export const quotedContent = (el: Element): boolean => el.closest('blockquote') !== null;

/** Elements that are furniture whatever their name. */
export const FURNITURE_TAGS = new Set(['FIGCAPTION', 'NAV', 'FOOTER', 'ASIDE', 'DIALOG', 'MENU', 'FORM', 'BUTTON', 'SELECT', 'TEXTAREA', 'INPUT', 'LABEL', 'IFRAME', 'NOSCRIPT']);

/**
 * Tokens before which a class name is a taxonomy or script hook, not a name for the element:
 * WordPress and other CMSs write the post's tags, categories and author into its classes
 * (`tag-cookie-recipes`, `category-social-media`, `author-jane`), and `js-` names are handles.
 */
const TAXONOMY_TOKENS = new Set(['tag', 'tags', 'category', 'categories', 'cat', 'author', 'format', 'type', 'status', 'js', 'has', 'is', 'no', 'with', 'parent', 'page', 'postid', 'term']);

/**
 * Tokens that, after a furniture word, make the name a layout box holding more than furniture:
 * `sidebar-and-content-body`, `sticky-sidebar-parent`, `nav-sidebar__body` wrap the text too.
 */
const CONTAINER_TOKENS = new Set(['content', 'contents', 'body', 'main', 'article', 'post', 'entry', 'story', 'text', 'container', 'wrapper', 'wrap', 'parent', 'relative', 'layout', 'column', 'col', 'row', 'grid', 'holder', 'and', 'left', 'right']);

const MAX_NAME_TOKENS = 4;

/** How one class name or id reads: 'furniture', 'small-furniture' or null. */
function classifyName(name: string): 'furniture' | 'small-furniture' | null {
  const tokens = name.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase().split(/[^a-z0-9]+/).filter(Boolean);
  // Longer names are slugs of headings (`sharing-with-a-single-developer`, ids that documentation
  // generators give sections), not names of the element's role.
  if (tokens.length > MAX_NAME_TOKENS) return null;
  let found: 'furniture' | 'small-furniture' | null = null;
  let read = 0;
  for (; read < tokens.length; read++) {
    const token = tokens[read];
    if (tokens.length > 1 && TAXONOMY_TOKENS.has(token)) break;
    if (found && CONTAINER_TOKENS.has(token)) return null;
    if (found === 'furniture') continue;
    // A comment's body or content is still the comment (`comments-content`, `comment-body`).
    if (COMMENT_TOKENS.has(token)) return 'furniture';
    if (FURNITURE_TOKENS.has(token)) found = 'furniture';
    else if (!found && SMALL_FURNITURE_TOKENS.has(token)) found = 'small-furniture';
  }
  if (!found && read > 0 && BOILERPLATE_SUBSTRING.test(tokens.slice(0, read).join('-'))) return 'furniture';
  if (!found && AUTHOR_BOX.test(name)) return 'furniture';
  if (!found && AUTHOR.test(name)) return 'small-furniture';
  return found;
}

/**
 * How an element's class, id or role names it: 'furniture' (outright), 'small-furniture'
 * (furniture when it holds little prose) or null.
 */
export function furnitureName(el: Element): 'furniture' | 'small-furniture' | null {
  const role = el.getAttribute('role');
  if (role && BOILERPLATE_ROLES.has(role.toLowerCase())) return 'furniture';
  const names = `${el.getAttribute('class') ?? ''} ${el.getAttribute('id') ?? ''}`.trim();
  if (!names) return null;
  let small = false;
  for (const name of names.split(/\s+/)) {
    const kind = classifyName(name);
    if (kind === 'furniture') return kind;
    if (kind) small = true;
  }
  return small ? 'small-furniture' : null;
}

/** One compound name for each alternative of BOILERPLATE_SUBSTRING (kept beside it). */
const COMPOUND_SAMPLES = [
  'sharebar', 'socialmedia', 'relatedposts', 'more-stories', 'most-read', 'commentlist', 'newsletterbox', 'cookienotice', 'screen-reader-text',
  'visually-hidden', 'sr-only', 'read-also', 'jp-relatedposts', 'wp-caption-credit', 'post-meta', 'entry-footer', 'article-tools', 'author-bio',
];

/**
 * Every class or id token and ARIA role the furniture test reads as furniture, and a compound
 * name for each of its patterns: for the tests that put them where no furniture test may act
 * (the page's root, its body, the wrappers of the article).
 */
export function furnitureNameSamples(): { names: string[]; roles: string[] } {
  return { names: [...FURNITURE_TOKENS, ...COMMENT_TOKENS, ...SMALL_FURNITURE_TOKENS, ...COMPOUND_SAMPLES, 'author'], roles: [...BOILERPLATE_ROLES] };
}

/**
 * Takes a furniture role (`navigation`, `complementary`…) from a wrapper of the page that the
 * furniture test kept in spite of it: Readability removes elements by these roles outright, and
 * would remove the article with its wrapper. (Its names only weigh in Readability's scoring,
 * and stay.)
 */
export function unnameFurniture(el: Element): void {
  const role = el.getAttribute('role');
  if (role && BOILERPLATE_ROLES.has(role.toLowerCase())) el.removeAttribute('role');
}

const COMMENTS = /comment|disqus|respond|repl(?:y|ies)/i;

/** Comment sections by their names (they hold prose, so the furniture test needs to know them). */
export function namedAsComments(el: Element): boolean {
  return COMMENTS.test(`${el.getAttribute('class') ?? ''} ${el.getAttribute('id') ?? ''}`);
}

/**
 * Names that mark the article body itself (schema.org's articleBody, and the class and id names
 * of the common CMS themes): a structural hint, weighed against the text, never trusted alone.
 */
const ARTICLE_BODY =
  /article-?body|article__body|articletext|article-?text|article-?content|article__content|story-?body|story-?content|story__body|post-?body|post-?content|post-?text|post-?entry|entry-?content|entry-?body|entry-?text|main-?content|content-?main|body-?text|text-?body|page-?content|news-?text|rich-?text|field-?body|field-name-body|node-?content|blog-?post|single-?post|content-?body/;

export function namedAsArticleBody(el: Element): boolean {
  const itemprop = el.getAttribute('itemprop');
  if (itemprop && /articleBody|text/i.test(itemprop)) return true;
  const names = `${el.getAttribute('class') ?? ''} ${el.getAttribute('id') ?? ''}`;
  if (names.length < 4) return false;
  return ARTICLE_BODY.test(names.toLowerCase().replace(/_/g, '-'));
}
