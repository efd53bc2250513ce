/**
 * A hand-written SVG bar chart: one bar per system with its 95% CI as a whisker. No dependency.
 */
import type { Interval } from './metrics.js';

export interface ChartBar {
  label: string;
  value: Interval;
  /** The reference system (the lexical baseline) is drawn in another colour. */
  reference?: boolean;
}

const escapeXml = (text: string): string => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

export function barChartSvg(title: string, bars: readonly ChartBar[], options: { yLabel?: string; max?: number } = {}): string {
  const { yLabel = 'nDCG@10', max = 1 } = options;
  const barWidth = 56;
  const gap = 28;
  const left = 64;
  const top = 48;
  const plotHeight = 260;
  const labelSpace = 110;
  const labelOverhang = 140; // rotated labels run right of their bar
  const width = Math.max(360, left + bars.length * (barWidth + gap) + gap + labelOverhang);
  const height = top + plotHeight + labelSpace;
  const y = (value: number): number => top + plotHeight * (1 - Math.min(max, Math.max(0, value)) / max);
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="12">`,
    `<rect width="${width}" height="${height}" fill="#ffffff"/>`,
    `<text x="${width / 2}" y="24" text-anchor="middle" font-size="15" font-weight="bold">${escapeXml(title)}</text>`,
    `<text transform="translate(16 ${top + plotHeight / 2}) rotate(-90)" text-anchor="middle">${escapeXml(yLabel)}</text>`,
  ];
  for (let tick = 0; tick <= 5; tick++) {
    const value = (max * tick) / 5;
    parts.push(
      `<line x1="${left}" x2="${width - 8}" y1="${y(value)}" y2="${y(value)}" stroke="#e5e5e5"/>`,
      `<text x="${left - 6}" y="${y(value) + 4}" text-anchor="end" fill="#555">${value.toFixed(1)}</text>`,
    );
  }
  parts.push(`<line x1="${left}" x2="${left}" y1="${top}" y2="${top + plotHeight}" stroke="#333"/>`);
  bars.forEach((bar, index) => {
    const x = left + gap + index * (barWidth + gap);
    const centre = x + barWidth / 2;
    const { mean, lo, hi } = bar.value;
    parts.push(
      `<rect x="${x}" y="${y(mean)}" width="${barWidth}" height="${top + plotHeight - y(mean)}" fill="${bar.reference ? '#9e9e9e' : '#3b6fb6'}"><title>${escapeXml(`${bar.label}: ${mean.toFixed(3)} [${lo.toFixed(3)}, ${hi.toFixed(3)}]`)}</title></rect>`,
      `<line x1="${centre}" x2="${centre}" y1="${y(hi)}" y2="${y(lo)}" stroke="#111" stroke-width="1.5"/>`,
      `<line x1="${centre - 8}" x2="${centre + 8}" y1="${y(hi)}" y2="${y(hi)}" stroke="#111" stroke-width="1.5"/>`,
      `<line x1="${centre - 8}" x2="${centre + 8}" y1="${y(lo)}" y2="${y(lo)}" stroke="#111" stroke-width="1.5"/>`,
      `<text x="${centre}" y="${y(hi) - 6}" text-anchor="middle">${mean.toFixed(3)}</text>`,
      `<text transform="translate(${centre} ${top + plotHeight + 14}) rotate(35)" text-anchor="start">${escapeXml(bar.label)}</text>`,
    );
  });
  parts.push('</svg>');
  return `${parts.join('\n')}\n`;
}
