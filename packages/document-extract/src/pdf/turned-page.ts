import type { Rule } from './page-drawing.js';
import type { PageRuns, TextRun } from './text-runs.js';

/** Share of a page's characters that must run one way for the page to be read that way up. */
const MOST = 0.6;

/**
 * A page whose text mostly runs one other way (a table printed sideways, a landscape page whose
 * content is turned) seen so that this text reads upright: the runs and rules turned by the
 * text's angle, the rest of the text (a page number along the edge) rotated in its turn. Pages
 * whose text runs upright come back as they are. Markdown only: plain text keeps its order.
 */
export function turnedUpright(runs: PageRuns): { runs: PageRuns; turnRules: (rules: Rule[]) => Rule[] } {
  const chars = (rs: TextRun[]) => rs.reduce((n, r) => n + r.str.trim().length, 0);
  const total = chars(runs.upright) + chars(runs.rotated);
  const byAngle = new Map<number, TextRun[]>();
  for (const r of runs.rotated) {
    if (!r.dir) continue;
    const degrees = (Math.atan2(r.dir[1], r.dir[0]) * 180) / Math.PI;
    const snapped = Math.round(degrees / 90) * 90;
    const angle = (snapped + 360) % 360;
    if (angle === 0 || Math.abs(degrees - snapped) > 5) continue;
    byAngle.set(angle, [...(byAngle.get(angle) ?? []), r]);
  }
  const [angle, turned] = [...byAngle].sort((a, b) => chars(b[1]) - chars(a[1]))[0] ?? [0, []];
  if (total === 0 || chars(turned) < total * MOST) return { runs, turnRules: (rules) => rules };
  const [cos, sin] = [Math.round(Math.cos((angle * Math.PI) / 180)), Math.round(Math.sin((angle * Math.PI) / 180))];
  // Rotation by -angle: the text's direction becomes +x, the page's y stays downwards.
  const turn = (x: number, y: number): [number, number] => [x * cos + y * sin, -x * sin + y * cos];
  const upright = turned.map((r) => {
    const [x, y] = turn(r.x, r.y);
    return { ...r, x, y, dir: undefined };
  });
  const others = [...runs.upright, ...runs.rotated.filter((r) => !turned.includes(r))].map((r) => {
    const [x, y] = turn(r.x, r.y);
    return { ...r, x, y };
  });
  const turnRules = (rules: Rule[]) => rules.map((rule): Rule => {
    const [a, b] = rule.horizontal ? [turn(rule.from, rule.at), turn(rule.to, rule.at)] : [turn(rule.at, rule.from), turn(rule.at, rule.to)];
    const horizontal = Math.abs(a[1] - b[1]) < Math.abs(a[0] - b[0]);
    return horizontal ? { horizontal, at: a[1], from: Math.min(a[0], b[0]), to: Math.max(a[0], b[0]) } : { horizontal, at: a[0], from: Math.min(a[1], b[1]), to: Math.max(a[1], b[1]) };
  });
  return { runs: { upright, rotated: others, fields: runs.fields }, turnRules };
}
