// Heat map colours of `sinew solve --heatmap` (blue is zero, red is
// 3% or more of the model's diagonal). ramp() is src/solve/quality.c's
// sinew_solve_heat_color, so the legend and the hover read-out agree with the file.
import { Color } from 'three';

export const RED_AT = 3; // % of the bind-space box diagonal that maps to red

// t in [0, 1] -> linear RGB: blue, cyan, green, yellow, red in four equal steps.
export function ramp(t) {
  t = Math.min(1, Math.max(0, t || 0));
  const s = t * 4;
  if (s < 1) return [0, s, 1];
  if (s < 2) return [0, 1, 2 - s];
  if (s < 3) return [s - 2, 1, 0];
  return [1, 4 - s, 0];
}

// The inverse of ramp for a colour read from the file: t in [0, 1], or null when the colour
// is not on the ramp (a file whose COLOR_0 is not a heat map).
export function unramp(r, g, b) {
  const near = (a, v) => Math.abs(a - v) < 0.02;
  let s = null;
  if (near(r, 0) && near(b, 1)) s = g;
  else if (near(r, 0) && near(g, 1)) s = 2 - b;
  else if (near(g, 1) && near(b, 0)) s = 2 + r;
  else if (near(r, 1) && near(b, 0)) s = 4 - g;
  return s === null ? null : Math.min(1, Math.max(0, s / 4));
}

// CSS gradient of the ramp as it appears on screen: the file's colours are linear and the
// renderer writes sRGB, so each stop is converted the same way.
export function cssGradient(direction = 'to right') {
  const stops = [];
  const c = new Color();
  for (let i = 0; i <= 16; i++) {
    const [r, g, b] = ramp(i / 16);
    c.setRGB(r, g, b, 'srgb-linear');
    stops.push(`#${c.getHexString('srgb')} ${((i / 16) * 100).toFixed(2)}%`);
  }
  return `linear-gradient(${direction}, ${stops.join(', ')})`;
}
