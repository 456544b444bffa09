//! Server-side chart rendering for Tendero's chat replies.
//!
//! Turns a small [`Chart`] description (horizontal bars, a trend line or budget
//! progress tracks) into a 1000×560 RGB PNG that stays legible on a phone. Text
//! is rasterised with `ab_glyph` from the embedded DejaVu Sans (so accented
//! Spanish, "¿¡ñ" and "$" render), shapes are drawn with small signed-distance
//! fills that give antialiased edges, and `png` encodes the result. No browser,
//! no C libraries, no external services. Rendering is deterministic (the same
//! chart always gives the same bytes) and never panics on odd input.

use ab_glyph::{Font, FontRef, PxScale, ScaleFont, point};

static FONT: &[u8] = include_bytes!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/assets/fonts/DejaVuSans.ttf"
));

/// One labelled value. `value` is in cents (non-negative); `shown` is the text drawn beside it (already formatted by the caller, e.g. "$1,234.00").
pub struct Bar {
    pub label: String,
    pub value: i64,
    pub shown: String,
}

/// A budget line: spent and limit in cents, with their formatted texts.
pub struct Progress {
    pub label: String,
    pub spent: i64,
    pub limit: i64,
    pub shown: String,
}

pub enum Chart {
    /// Horizontal bars sorted as given (e.g. spending by category), at most 12 drawn.
    Bars { title: String, bars: Vec<Bar> },
    /// A trend: points in order (e.g. one per month) joined by a line, with dots,
    /// value labels above the points and the labels under the x axis.
    Line { title: String, points: Vec<Bar> },
    /// Budget progress: one horizontal track per item (at most 12), filled to
    /// spent/limit: green < 80 %, amber 80–100 %, red > 100 %, marker at 100 %.
    Progress { title: String, items: Vec<Progress> },
}

pub const WIDTH: u32 = 1000;
pub const HEIGHT: u32 = 560;

type Rgb = [u8; 3];
const TEXT: Rgb = [31, 41, 55];
const MUTED: Rgb = [75, 85, 99];
const GRID: Rgb = [229, 231, 235];
const AXIS: Rgb = [190, 196, 205];
const ACCENT: Rgb = [37, 99, 235];
const AREA: Rgb = [226, 236, 253];
const TRACK: Rgb = [236, 239, 243];
const GREEN: Rgb = [22, 163, 74];
const AMBER: Rgb = [234, 150, 8];
const RED: Rgb = [220, 38, 38];
const WHITE: Rgb = [255, 255, 255];

const W: f32 = WIDTH as f32;
const MARGIN: f32 = 32.0;
const TOP: f32 = 92.0;
const BOTTOM: f32 = 540.0;
const MAX_ROWS: usize = 12;

/// The PNG bytes, or None when there is nothing to draw (no items, or every value is 0 / every limit is 0).
pub fn render(chart: &Chart) -> Option<Vec<u8>> {
    let font = FontRef::try_from_slice(FONT).ok()?;
    let mut c = Canvas {
        px: Pixels(vec![255; (WIDTH * HEIGHT * 3) as usize]),
        font,
    };
    let title = match chart {
        Chart::Bars { title, bars: b } => bars(&mut c, b).map(|()| title)?,
        Chart::Line { title, points } => line(&mut c, points).map(|()| title)?,
        Chart::Progress { title, items } => progress(&mut c, items).map(|()| title)?,
    };
    c.label(title, MARGIN, 54.0, 34.0, TEXT, W - 2.0 * MARGIN, 0.0);
    c.px.encode()
}

/// An amount in cents as a float, negatives clamped to 0.
fn cents(v: i64) -> f64 {
    v.max(0) as f64
}

fn bars(c: &mut Canvas, bars: &[Bar]) -> Option<()> {
    bars.iter().any(|b| b.value > 0).then_some(())?;
    let bars = &bars[..bars.len().min(MAX_ROWS)];
    let max = bars.iter().map(|b| cents(b.value)).fold(1.0, f64::max);
    let rows_ = bars
        .iter()
        .map(|b| (&*b.label, &*b.shown, cents(b.value) / max, ACCENT));
    rows(c, rows_.collect(), None);
    Some(())
}

fn progress(c: &mut Canvas, items: &[Progress]) -> Option<()> {
    items.iter().any(|p| p.limit > 0).then_some(())?;
    let items = &items[..items.len().min(MAX_ROWS)];
    // Spent / limit; a zero limit counts as half a cent, so any spending overruns it.
    let ratio = |p: &Progress| cents(p.spent) / cents(p.limit).max(0.5);
    // The track spans 0..range (at most 150 %), so an overrun shows past the marker.
    let range = items.iter().map(ratio).fold(1.0, f64::max).min(1.5);
    let rows_ = items.iter().map(|p| {
        let r = ratio(p);
        // Green below 80 %, amber from 80 % to 100 %, red past 100 %.
        let colour = [GREEN, AMBER, RED][usize::from(r >= 0.8) + usize::from(r > 1.0)];
        (&*p.label, &*p.shown, (r / range).min(1.0), colour)
    });
    rows(c, rows_.collect(), Some(1.0 / range));
    Some(())
}

/// Label, shown text, fill as a fraction (0..=1) of the bar space, fill colour.
type Row<'a> = (&'a str, &'a str, f64, Rgb);

/// Draws one horizontal bar per row. With a `marker` (the 100 % point as a
/// fraction of the track) the rows are budget tracks instead of plain bars.
fn rows(c: &mut Canvas, rows: Vec<Row>, marker: Option<f64>) {
    let n = rows.len().max(1) as f32;
    let size = if rows.len() > 8 { 20.0 } else { 22.0 };
    let label_w = c.widest(rows.iter().map(|r| r.0), size, 280.0);
    let value_w = c.widest(rows.iter().map(|r| r.1), size, 230.0);
    let (x0, x1) = (MARGIN + label_w + 18.0, W - MARGIN - value_w - 14.0);
    let row = ((BOTTOM - TOP) / n).min(84.0);
    // Few rows sit in the middle of the plot area rather than under the title.
    let first = TOP + (BOTTOM - TOP - row * n) / 2.0;
    let (top, bottom) = (first.round(), (first + row * n).round());
    let (thick, radius) = match marker {
        Some(_) => ((row * 0.42).min(26.0), 99.0),
        None => ((row * 0.62).min(40.0), 4.0),
    };
    if marker.is_none() {
        for k in 1..=4 {
            let x = (x0 + (x1 - x0) * k as f32 / 4.0).round();
            c.px.rect(x, top, x + 1.0, bottom, 0.0, GRID);
        }
        c.px.rect(x0.round() - 2.0, top, x0.round(), bottom, 0.0, AXIS);
    }
    for (i, &(label, shown, frac, colour)) in rows.iter().enumerate() {
        let cy = first + row * (i as f32 + 0.5);
        let (y0, y1, base) = (cy - thick / 2.0, cy + thick / 2.0, cy + size * 0.36);
        c.label(label, x0 - 16.0, base, size, TEXT, label_w, 1.0);
        let mut len = (x1 - x0) * frac.clamp(0.0, 1.0) as f32;
        if frac > 0.0 {
            len = len.max(3.0);
        }
        if marker.is_some() {
            c.px.rect(x0, y0, x1, y1, radius, TRACK);
        }
        c.px.rect(x0, y0, x0 + len, y1, radius, colour);
        if let Some(m) = marker {
            let x = (x0 + (x1 - x0) * m as f32).round();
            c.px.rect(x - 1.0, y0 - 7.0, x + 1.0, y1 + 7.0, 0.0, TEXT);
            if i == 0 {
                c.label("100 %", x, y0 - 12.0, 20.0, MUTED, 80.0, 0.5);
            }
        }
        let value_x = if marker.is_some() { x1 } else { x0 + len };
        c.label(shown, value_x + 12.0, base, size, MUTED, value_w, 0.0);
    }
}

/// x of point `i` of `n` in a line chart (each point sits in the middle of its band).
fn line_x(i: usize, n: usize) -> f32 {
    let (left, right) = (MARGIN + 8.0, W - MARGIN - 8.0);
    left + (right - left) / n.max(1) as f32 * (i as f32 + 0.5)
}

fn line(c: &mut Canvas, points: &[Bar]) -> Option<()> {
    let max = points.iter().map(|p| cents(p.value)).fold(0.0, f64::max);
    (max > 0.0).then_some(())?;
    let (n, top, base) = (points.len(), 138.0, 482.0);
    let band = line_x(1, n) - line_x(0, n);
    let y_of = |p: &Bar| base - (base - top) * (cents(p.value) / max) as f32;
    let at = |i: usize| (line_x(i, n), y_of(&points[i]));
    let pts: Vec<(f32, f32)> = (0..n).map(at).collect();
    for k in 1..=4 {
        let y = (base - (base - top) * k as f32 / 4.0).round();
        c.px.rect(MARGIN, y, W - MARGIN, y + 1.0, 0.0, GRID);
    }
    // Light area under the line, one pixel column at a time.
    for px in pts[0].0.ceil() as i32..pts[n - 1].0.floor() as i32 {
        let t = (px as f32 + 0.5 - pts[0].0) / band;
        let i = (t.max(0.0) as usize).min(n.saturating_sub(2));
        let y = pts[i].1 + (pts[i + 1].1 - pts[i].1) * (t - i as f32);
        c.px.rect(px as f32, y, px as f32 + 1.0, base, 0.0, AREA);
    }
    c.px.rect(MARGIN, base, W - MARGIN, base + 2.0, 0.0, AXIS);
    for w in pts.windows(2) {
        c.px.segment(w[0], w[1], 4.0, ACCENT);
    }
    for &(x, y) in pts.iter().filter(|_| band >= 14.0) {
        c.px.circle(x, y, 7.5, WHITE);
        c.px.circle(x, y, 5.5, ACCENT);
    }
    // Label every `step`-th point, counting back from the latest one, and skip
    // any label that would run into the one already drawn to its right.
    let size = 20.0;
    let texts = points.iter().take(200).flat_map(|p| [&*p.label, &*p.shown]);
    let step = ((c.widest(texts, size, 170.0) + 14.0) / band)
        .ceil()
        .max(1.0);
    let room = band * step - 10.0;
    let mut free = W - MARGIN; // left edge of the last label drawn
    for i in (0..n).rev().step_by(step as usize) {
        let (x, y) = pts[i];
        let (value, wv) = c.fit(&points[i].shown, size, room);
        let (label, wl) = c.fit(&points[i].label, size, room);
        let half = wv.max(wl) / 2.0;
        let cx = x.min(free - half).max(MARGIN + half);
        if cx + half > free + 0.5 {
            continue;
        }
        free = cx - half - 10.0;
        // Value above the point, or below it where the line comes down into it.
        let around = [i.wrapping_sub(1), i + 1].map(|j| pts.get(j).map_or(y, |p| p.1));
        let below = around[0] + around[1] < 2.0 * y - 2.0 && y + 40.0 < base;
        let vy = if below { y + 34.0 } else { y - 16.0 };
        // Values go with the dots; a dense line only gets its latest value. A
        // white halo keeps them readable where the line crosses them.
        if band >= 14.0 || i == n - 1 {
            for k in 0..8 {
                let (dy, dx) = (k as f32 * std::f32::consts::FRAC_PI_4).sin_cos();
                c.label(&value, cx + 2.0 * dx, vy + 2.0 * dy, size, WHITE, room, 0.5);
            }
            c.label(&value, cx, vy, size, MUTED, room, 0.5);
        }
        c.label(&label, cx, base + 32.0, size, TEXT, room, 0.5);
    }
    Some(())
}

/// The RGB pixel buffer.
struct Pixels(Vec<u8>);

impl Pixels {
    fn blend(&mut self, x: i32, y: i32, c: Rgb, a: f32) {
        if x < 0 || y < 0 || x >= WIDTH as i32 || y >= HEIGHT as i32 || a.is_nan() || a <= 0.0 {
            return;
        }
        let i = (y as usize * WIDTH as usize + x as usize) * 3;
        for (dst, &src) in self.0[i..i + 3].iter_mut().zip(&c) {
            let bg = f32::from(*dst);
            *dst = (bg + (f32::from(src) - bg) * a.min(1.0)).round() as u8;
        }
    }

    /// Covers the box `lo`..`hi` with the shape whose signed distance (negative
    /// inside) `sdf` gives at a pixel centre, with a one-pixel antialiased rim.
    fn fill(&mut self, lo: (f32, f32), hi: (f32, f32), c: Rgb, sdf: impl Fn(f32, f32) -> f32) {
        let (xs, ys) = (
            lo.0.max(0.0) as i32..hi.0.ceil().min(W) as i32,
            lo.1.max(0.0) as i32,
        );
        for y in ys..hi.1.ceil().min(HEIGHT as f32) as i32 {
            for x in xs.clone() {
                let d = sdf(x as f32 + 0.5, y as f32 + 0.5);
                self.blend(x, y, c, (0.5 - d).clamp(0.0, 1.0));
            }
        }
    }

    /// A rectangle with corners rounded by radius `r`.
    fn rect(&mut self, x0: f32, y0: f32, x1: f32, y1: f32, r: f32, c: Rgb) {
        if !(x1 > x0 && y1 > y0) {
            return;
        }
        let (hw, hh) = ((x1 - x0) / 2.0, (y1 - y0) / 2.0);
        let (cx, cy, r) = (x0 + hw, y0 + hh, r.min(hw).min(hh).max(0.0));
        self.fill((x0, y0), (x1, y1), c, |x, y| {
            let (qx, qy) = ((x - cx).abs() - hw + r, (y - cy).abs() - hh + r);
            qx.max(0.0).hypot(qy.max(0.0)) + qx.max(qy).min(0.0) - r
        });
    }

    fn circle(&mut self, cx: f32, cy: f32, r: f32, c: Rgb) {
        let (lo, hi) = ((cx - r - 1.0, cy - r - 1.0), (cx + r + 1.0, cy + r + 1.0));
        self.fill(lo, hi, c, |x, y| (x - cx).hypot(y - cy) - r);
    }

    /// A line segment of width `w` with round caps.
    fn segment(&mut self, a: (f32, f32), b: (f32, f32), w: f32, c: Rgb) {
        let (h, dx, dy) = (w / 2.0 + 1.0, b.0 - a.0, b.1 - a.1);
        let lo = (a.0.min(b.0) - h, a.1.min(b.1) - h);
        let hi = (a.0.max(b.0) + h, a.1.max(b.1) + h);
        let len2 = (dx * dx + dy * dy).max(1e-6);
        self.fill(lo, hi, c, |x, y| {
            let t = (((x - a.0) * dx + (y - a.1) * dy) / len2).clamp(0.0, 1.0);
            (x - a.0 - t * dx).hypot(y - a.1 - t * dy) - w / 2.0
        });
    }

    fn encode(&self) -> Option<Vec<u8>> {
        let mut out = Vec::new();
        let mut enc = png::Encoder::new(&mut out, WIDTH, HEIGHT);
        enc.set_color(png::ColorType::Rgb);
        enc.set_depth(png::BitDepth::Eight);
        enc.set_compression(png::Compression::Fast);
        let mut writer = enc.write_header().ok()?;
        writer.write_image_data(&self.0).ok()?;
        writer.finish().ok()?;
        Some(out)
    }
}

struct Canvas<'f> {
    px: Pixels,
    font: FontRef<'f>,
}

impl<'f> Canvas<'f> {
    /// `s` without control characters, cut with "…" to at most `max_w` px at
    /// `size`; returns the text and its width.
    fn fit(&self, s: &str, size: f32, max_w: f32) -> (String, f32) {
        let sf = self.font.as_scaled(PxScale::from(size));
        let ellipsis = sf.h_advance(sf.glyph_id('…'));
        let (mut out, mut w, mut prev) = (String::new(), 0.0, None);
        let mut cut = (0, 0.0); // longest prefix that leaves room for "…"
        // 300 characters are wider than the image even at 20 px; this bounds the work.
        for ch in s.chars().take(300) {
            let ch = if ch.is_control() { ' ' } else { ch };
            let id = sf.glyph_id(ch);
            let adv = prev.map_or(0.0, |p| sf.kern(p, id)) + sf.h_advance(id);
            if w + adv > max_w {
                out.truncate(cut.0);
                let dots = ellipsis <= max_w;
                out.extend(dots.then_some('…'));
                return (out, cut.1 + if dots { ellipsis } else { 0.0 });
            }
            (w, prev) = (w + adv, Some(id));
            out.push(ch);
            if !ch.is_whitespace() && w + ellipsis <= max_w {
                cut = (out.len(), w);
            }
        }
        (out, w)
    }

    fn widest<'s>(&self, texts: impl Iterator<Item = &'s str>, size: f32, max_w: f32) -> f32 {
        texts
            .map(|s| self.fit(s, size, max_w).1)
            .fold(0.0, f32::max)
    }

    /// Draws `s` fitted to `max_w`, with `align` 0 = left of x, 0.5 = centred, 1 = right.
    #[allow(clippy::too_many_arguments)]
    fn label(&mut self, s: &str, x: f32, base: f32, size: f32, c: Rgb, max_w: f32, align: f32) {
        let (s, w) = self.fit(s, size, max_w);
        let scale = PxScale::from(size);
        let sf = self.font.as_scaled(scale);
        let (mut caret, mut prev) = (x - w * align, None);
        for ch in s.chars() {
            let id = sf.glyph_id(ch);
            caret += prev.map_or(0.0, |p| sf.kern(p, id));
            let glyph = id.with_scale_and_position(scale, point(caret, base));
            if let Some(og) = self.font.outline_glyph(glyph) {
                let (b, px) = (og.px_bounds(), &mut self.px);
                let (x, y) = (b.min.x as i32, b.min.y as i32);
                og.draw(|gx, gy, a| px.blend(x + gx as i32, y + gy as i32, c, a));
            }
            (caret, prev) = (caret + sf.h_advance(id), Some(id));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bar(label: &str, value: i64) -> Bar {
        let shown = format!("${}.{:02}", value / 100, value % 100);
        Bar {
            label: label.into(),
            value,
            shown,
        }
    }

    fn budget(label: &str, spent: i64, limit: i64) -> Progress {
        let shown = format!("${} / ${}", spent / 100, limit / 100);
        Progress {
            label: label.into(),
            spent,
            limit,
            shown,
        }
    }

    fn bars(bars: Vec<Bar>) -> Chart {
        let title = "Gastos por categoría".into();
        Chart::Bars { title, bars }
    }

    fn line(points: Vec<Bar>) -> Chart {
        let title = "¿Cuánto gasté cada mes?".into();
        Chart::Line { title, points }
    }

    fn progress(items: Vec<Progress>) -> Chart {
        let title = "Presupuesto de junio".into();
        Chart::Progress { title, items }
    }

    /// Renders and decodes the chart, checking the PNG is 1000×560 RGB.
    fn pixels(chart: &Chart) -> Vec<u8> {
        let png = std::io::Cursor::new(render(chart).expect("something to draw"));
        let mut reader = png::Decoder::new(png).read_info().unwrap();
        let mut buf = vec![0; reader.output_buffer_size().unwrap()];
        let info = reader.next_frame(&mut buf).unwrap();
        assert_eq!((info.width, info.height), (WIDTH, HEIGHT));
        assert_eq!(info.color_type, png::ColorType::Rgb);
        buf
    }

    fn at(img: &[u8], x: u32, y: u32) -> Rgb {
        let i = ((y * WIDTH + x) * 3) as usize;
        [img[i], img[i + 1], img[i + 2]]
    }

    fn count(img: &[u8], c: Rgb) -> usize {
        img.chunks(3).filter(|&p| p == c).count()
    }

    #[test]
    fn double_value_draws_a_bar_twice_as_long() {
        let img = pixels(&bars(vec![bar("Renta", 20_000), bar("Café", 10_000)]));
        // Longest run of accent pixels in each group of consecutive rows that has any.
        let (mut groups, mut previous) = (Vec::new(), 0);
        for y in 0..HEIGHT {
            let run = (0..WIDTH).filter(|&x| at(&img, x, y) == ACCENT).count();
            match groups.last_mut() {
                Some(g) if previous > 0 => *g = run.max(*g),
                _ if run > 0 => groups.push(run),
                _ => {}
            }
            previous = run;
        }
        assert_eq!(groups.len(), 2, "two bars expected, got {groups:?}");
        let ratio = groups[0] as f64 / groups[1] as f64;
        assert!((1.95..=2.05).contains(&ratio), "{groups:?}");
        assert!(groups[0] > 300, "the longest bar spans most of the plot");
    }

    #[test]
    fn title_band_has_dark_text() {
        let img = pixels(&bars(vec![bar("Ñandú", 1)]));
        let dark = (0..70 * WIDTH).map(|i| at(&img, i % WIDTH, i / WIDTH));
        assert!(dark.filter(|p| p.iter().all(|&v| v < 90)).count() > 200);
    }

    #[test]
    fn nothing_to_draw_gives_none() {
        assert!(render(&bars(vec![])).is_none());
        assert!(render(&bars(vec![bar("a", 0), bar("b", -5)])).is_none());
        assert!(render(&line(vec![])).is_none());
        assert!(render(&line(vec![bar("ene", 0), bar("feb", 0)])).is_none());
        assert!(render(&progress(vec![])).is_none());
        let zero_limits = vec![budget("Ocio", 500, 0), budget("Café", 0, 0)];
        assert!(render(&progress(zero_limits)).is_none());
        // A budget with nothing spent yet is still worth drawing.
        assert!(render(&progress(vec![budget("Ocio", 0, 10_000)])).is_some());
    }

    #[test]
    fn progress_colours_follow_the_ratio() {
        let over = pixels(&progress(vec![budget("Restaurantes", 15_000, 10_000)]));
        assert!(count(&over, RED) > 100 && count(&over, GREEN) == 0);
        let under = pixels(&progress(vec![budget("Súper", 5_000, 10_000)]));
        assert!(count(&under, GREEN) > 100 && count(&under, RED) + count(&under, AMBER) == 0);
        let near = pixels(&progress(vec![budget("Gasolina", 9_000, 10_000)]));
        assert!(count(&near, AMBER) > 100 && count(&near, RED) == 0);
    }

    #[test]
    fn line_draws_accent_near_each_point() {
        let months = [("ene", 100), ("feb", 400), ("mar", 0), ("abr", 250)];
        let img = pixels(&line(months.iter().map(|&(m, v)| bar(m, v)).collect()));
        for i in 0..4 {
            let x = line_x(i, 4).round() as u32;
            let near = (x - 3..=x + 3).flat_map(|x| (0..HEIGHT).map(move |y| (x, y)));
            let hits = near.filter(|&(x, y)| at(&img, x, y) == ACCENT).count();
            assert!(hits >= 10, "point {i} at x={x}: {hits} accent pixels");
        }
    }

    #[test]
    fn same_input_same_bytes() {
        let chart = || line(vec![bar("Transporte público", 12_345), bar("Sí", 9)]);
        assert_eq!(render(&chart()), render(&chart()));
    }

    #[test]
    fn hostile_inputs_still_give_valid_pngs() {
        let long = "¿Qué pasó con el año? ¡Ñoño! ".repeat(70);
        let big = |i| Bar {
            shown: long.clone(),
            ..bar(&long, i64::MAX / 4 - i)
        };
        let odd = || vec![bar("", i64::MAX / 4), bar("\n\t\u{0}🙂", i64::MIN)];
        let budgets = (0..500).map(|i| budget(&long, i64::MAX / 4 - i, i % 7));
        let charts = [
            bars((0..500).map(big).collect()),
            line((0..500).map(big).collect()),
            progress(budgets.collect()),
            bars(odd()),
            line(odd()),
            line(vec![bar("sólo", 7)]),
            progress(vec![budget("", i64::MAX / 4, 1), budget("x", -1, 9)]),
            Chart::Line {
                title: long.clone(),
                points: vec![bar(&long, 1)],
            },
        ];
        for chart in &charts {
            pixels(chart);
        }
    }

    #[test]
    fn long_labels_are_cut_with_an_ellipsis() {
        let font = FontRef::try_from_slice(FONT).unwrap();
        let c = Canvas {
            px: Pixels(Vec::new()),
            font,
        };
        let (s, w) = c.fit(&"Educación y útiles escolares ".repeat(20), 22.0, 200.0);
        assert!(s.ends_with('…') && w <= 200.0 && w > 150.0, "{s:?} {w}");
        assert_eq!(c.fit("Café\n", 22.0, 200.0).0, "Café ");
    }
}
