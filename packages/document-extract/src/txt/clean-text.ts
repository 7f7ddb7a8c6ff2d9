/**
 * SPEC: "Control characters other than form feed are removed." Tabs and line ends are layout,
 * not control data, so they stay (line ends normalised to LF). Terminal formatting is removed as
 * a whole, not just its control byte: an ANSI escape such as ESC[1m would otherwise leave "[1m"
 * in the text, and nroff overstrike ("N\bN" bold, "_\bN" underline) would leave doubled letters.
 */
const ANSI_ESCAPE = /\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[()][0-9A-Za-z]|[@-Z\\-_])/g;
const OVERSTRIKE = /[^\n\x08]\x08/gu;
// C0 and C1 controls except tab, LF and form feed (CR is gone after line-end normalisation).
const CONTROL = /[\x00-\x08\x0b\x0d-\x1f\x7f-\x9f]/g;

export function cleanText(text: string): { text: string; removed: number } {
  let removed = 0;
  const count = (match: string): string => {
    removed += match.length;
    return '';
  };
  const cleaned = text
    .replace(/\r\n?/g, '\n')
    .replace(ANSI_ESCAPE, count)
    .replace(OVERSTRIKE, count)
    .replace(CONTROL, count);
  return { text: cleaned, removed };
}
