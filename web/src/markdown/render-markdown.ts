/**
 * Markdown of messages, checkpoints and summaries as sanitized DOM (issue 28). markdown-it parses CommonMark with raw
 * HTML off (`html: false`: a `<script>` in a log is text), links limited to `http:`, `https:`, `mailto:` and in-page
 * `#…` addresses; DOMPurify then keeps only the tags and attributes this renderer emits, so even a parser defect
 * cannot put a script, an event handler, SVG or a data URL into the page. Images become links (the CSP allows no
 * remote image, and a log should not make the browser fetch anything); headings are shifted down two levels so a
 * message's `# Title` never competes with the view's own headings.
 */
import DOMPurify from 'dompurify';
import MarkdownIt from 'markdown-it';

/** Addresses a rendered link may have: the web, mail, and the page's own hash routes. */
const SAFE_URL = /^(?:https?:|mailto:|#)/i;

/** What the renderer below emits; anything else is removed by DOMPurify. */
const ALLOWED_TAGS = [
  'a',
  'blockquote',
  'br',
  'code',
  'del',
  'em',
  'figcaption',
  'figure',
  'h3',
  'h4',
  'h5',
  'h6',
  'hr',
  'li',
  'ol',
  'p',
  'pre',
  's',
  'strong',
  'table',
  'tbody',
  'td',
  'th',
  'thead',
  'tr',
  'ul',
];
const ALLOWED_ATTR = ['href', 'class', 'start', 'title', 'rel', 'target'];

const markdown = new MarkdownIt({ html: false, linkify: false, typographer: false, breaks: true });
// Single newlines are line breaks (`breaks: true`): chat messages are typed that way; parsing stays CommonMark's.
markdown.validateLink = (url) => SAFE_URL.test(url.trim());

markdown.core.ruler.push('shift-headings', (state) => {
  for (const token of state.tokens)
    if (token.type === 'heading_open' || token.type === 'heading_close') token.tag = `h${Math.min(6, Number(token.tag.slice(1)) + 2)}`;
});

markdown.renderer.rules.fence = (tokens, index) => {
  const token = tokens[index];
  if (token === undefined) return '';
  const language = token.info.trim().split(/\s+/u)[0] ?? '';
  const escapeHtml = markdown.utils.escapeHtml;
  const caption = language === '' ? '' : `<figcaption class="code-language">${escapeHtml(language)}</figcaption>`;
  const codeClass = language === '' ? '' : ` class="language-${escapeHtml(language)}"`;
  return `<figure class="code-block">${caption}<pre><code${codeClass}>${escapeHtml(token.content)}</code></pre></figure>\n`;
};

markdown.renderer.rules.image = (tokens, index, options, env, self) => {
  const token = tokens[index];
  if (token === undefined) return '';
  const src = String(token.attrGet('src') ?? '');
  const alt = self.renderInlineAsText(token.children ?? [], options, env);
  const escapeHtml = markdown.utils.escapeHtml;
  return `<a class="image-link" href="${escapeHtml(src)}">${escapeHtml(alt === '' ? src : alt)}</a>`;
};

let hooked = false;
/** Links leave the page in a new tab without an opener or a referrer; in-page links stay. */
function hookLinks(): void {
  if (hooked) return;
  hooked = true;
  DOMPurify.addHook('afterSanitizeAttributes', (node) => {
    if (node.tagName !== 'A') return;
    const href = node.getAttribute('href') ?? '';
    if (!SAFE_URL.test(href)) node.removeAttribute('href');
    else if (!href.startsWith('#')) {
      node.setAttribute('target', '_blank');
      node.setAttribute('rel', 'noopener noreferrer');
    }
  });
}

/**
 * Renders Markdown into a sanitized fragment, ready to be appended.
 *
 * @param source Markdown text from a log
 * @returns a fragment holding only the allowed tags and attributes
 */
export function renderMarkdown(source: string): DocumentFragment {
  hookLinks();
  return DOMPurify.sanitize(markdown.render(source), {
    ALLOWED_TAGS,
    ALLOWED_ATTR,
    ALLOWED_URI_REGEXP: SAFE_URL,
    ALLOW_DATA_ATTR: false,
    RETURN_DOM_FRAGMENT: true,
  });
}
