/** Bullet glyphs that start list items (U+F0B7 and friends are Symbol/Wingdings bullets in Word PDFs). */
export const BULLET = /^(?:[•·▪◦‣●○■□\uf0b7\uf0a7\uf076\uf0d8]|[*–-](?=\s))\s*/u;
/** "1." "12)" "a)" "(b)" */
export const NUMBERED = /^(?:(\d{1,3})[.)]|\(?([a-z])\))\s+/;
/** Dot leaders of a table of contents: such lines stand alone. */
export const DOT_LEADER = /(?:\.\s?){4,}|…{2,}/;

export const startsListItem = (text: string): boolean => BULLET.test(text) || NUMBERED.test(text);
