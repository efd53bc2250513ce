/** A hand-written SVG line chart (no dependency): one panel per metric, one line per series, x = items. */

export interface Series {
  label: string;
  points: { x: number; y: number }[];
}

export interface Panel {
  title: string;
  yLabel: string;
  series: Series[];
}

const COLOURS = ['#3b6fb6', '#d9822b', '#2e9e5b', '#b83b5e', '#7a5cc4', '#6b6b6b'];
const escapeXml = (text: string): string => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const niceMax = (value: number): number => {
  if (!(value > 0)) return 1;
  const step = 10 ** Math.floor(Math.log10(value));
  return [1, 2, 2.5, 5, 10].map((m) => m * step).find((m) => m >= value)!;
};

export function lineChartSvg(title: string, panels: Panel[]): string {
  const panelWidth = 380;
  const plotHeight = 220;
  const left = 64;
  const top = 56;
  const legendHeight = 18 * Math.max(...panels.map((p) => p.series.length), 1) + 16;
  const width = panels.length * panelWidth + 20;
  const height = top + plotHeight + 40 + legendHeight;
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="12">`,
    `<rect width="${width}" height="${height}" fill="#ffffff"/>`,
    `<text x="${width / 2}" y="22" text-anchor="middle" font-size="15" font-weight="bold">${escapeXml(title)}</text>`,
  ];
  panels.forEach((panel, p) => {
    const x0 = p * panelWidth + left;
    const plotWidth = panelWidth - left - 24;
    const xs = [...new Set(panel.series.flatMap((s) => s.points.map((pt) => pt.x)))].sort((a, b) => a - b);
    const yMax = niceMax(Math.max(0, ...panel.series.flatMap((s) => s.points.map((pt) => pt.y)).filter(Number.isFinite)));
    // Sizes are spread evenly (10k, 30k, 100k read as a growth curve, not squeezed on a linear axis).
    const xAt = (x: number) => x0 + (xs.length <= 1 ? plotWidth / 2 : (xs.indexOf(x) / (xs.length - 1)) * plotWidth);
    const yAt = (y: number) => top + plotHeight * (1 - Math.min(yMax, Math.max(0, y)) / yMax);
    parts.push(`<text x="${x0 + plotWidth / 2}" y="${top - 14}" text-anchor="middle" font-weight="bold">${escapeXml(panel.title)}</text>`);
    parts.push(`<text transform="translate(${x0 - 44} ${top + plotHeight / 2}) rotate(-90)" text-anchor="middle">${escapeXml(panel.yLabel)}</text>`);
    for (let tick = 0; tick <= 4; tick++) {
      const value = (yMax * tick) / 4;
      parts.push(`<line x1="${x0}" x2="${x0 + plotWidth}" y1="${yAt(value)}" y2="${yAt(value)}" stroke="#e5e5e5"/>`);
      parts.push(`<text x="${x0 - 6}" y="${yAt(value) + 4}" text-anchor="end" fill="#555">${Number(value.toPrecision(3))}</text>`);
    }
    for (const x of xs) parts.push(`<text x="${xAt(x)}" y="${top + plotHeight + 16}" text-anchor="middle" fill="#555">${x >= 1000 ? `${Math.round(x / 1000)}k` : x}</text>`);
    parts.push(`<text x="${x0 + plotWidth / 2}" y="${top + plotHeight + 32}" text-anchor="middle">items</text>`);
    panel.series.forEach((series, s) => {
      const colour = COLOURS[s % COLOURS.length]!;
      const points = series.points.filter((pt) => Number.isFinite(pt.y)).sort((a, b) => a.x - b.x);
      if (points.length > 1) parts.push(`<polyline fill="none" stroke="${colour}" stroke-width="2" points="${points.map((pt) => `${xAt(pt.x)},${yAt(pt.y)}`).join(' ')}"/>`);
      for (const pt of points) {
        parts.push(`<circle cx="${xAt(pt.x)}" cy="${yAt(pt.y)}" r="4" fill="${colour}"><title>${escapeXml(`${series.label}: ${pt.y} at ${pt.x}`)}</title></circle>`);
        parts.push(`<text x="${xAt(pt.x) + 6}" y="${yAt(pt.y) - 6}" fill="${colour}" font-size="11">${pt.y}</text>`);
      }
      const ly = top + plotHeight + 52 + s * 18;
      parts.push(`<rect x="${x0}" y="${ly - 9}" width="12" height="12" fill="${colour}"/><text x="${x0 + 18}" y="${ly + 1}">${escapeXml(series.label)}</text>`);
    });
  });
  parts.push('</svg>');
  return `${parts.join('\n')}\n`;
}
