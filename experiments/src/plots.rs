//! PNG charts (plotters): bars with confidence intervals, empirical CDFs, line curves and
//! scatter plots.
//! Text is drawn with the DejaVu Sans font the binary embeds, so no system font is needed.

use std::path::Path;
use std::sync::Once;

use plotters::coord::Shift;
use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;

const FONT: &[u8] = include_bytes!("../../data/fonts/DejaVuSans.ttf");
pub const SIZE: (u32, u32) = (900, 540);
const COLORS: [RGBColor; 12] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
    RGBColor(188, 189, 34),
    RGBColor(23, 190, 207),
    RGBColor(0, 0, 0),
    RGBColor(255, 215, 0),
];

fn register_font() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        plotters::style::register_font("sans-serif", FontStyle::Normal, FONT)
            .map_err(|_| ())
            .expect("the embedded font parses");
    });
}

fn color(k: usize) -> RGBColor {
    COLORS[k % COLORS.len()]
}

fn error(path: &Path, e: impl std::fmt::Display) -> anyhow::Error {
    anyhow::anyhow!("drawing {}: {e}", path.display())
}

/// The range of `values` with a margin, never empty.
fn span(values: impl Iterator<Item = f64>) -> (f64, f64) {
    let (lo, hi) = values
        .filter(|v| v.is_finite())
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| {
            (a.min(v), b.max(v))
        });
    if !lo.is_finite() {
        return (0.0, 1.0);
    }
    let pad = ((hi - lo) * 0.05).max(hi.abs() * 1e-3).max(1e-9);
    (lo - pad, hi + pad)
}

/// Each point's y averaged with up to `window - 1` points before it.
pub fn moving_average(points: &[(f64, f64)], window: usize) -> Vec<(f64, f64)> {
    points
        .iter()
        .enumerate()
        .map(|(k, &(x, _))| {
            let from = (k + 1).saturating_sub(window);
            let ys = &points[from..=k];
            (x, ys.iter().map(|p| p.1).sum::<f64>() / ys.len() as f64)
        })
        .collect()
}

/// One bar per label: its mean with a ±`ci` whisker.
pub fn bars(
    path: &Path,
    title: &str,
    y_label: &str,
    bars: &[(String, f64, f64)],
) -> anyhow::Result<()> {
    register_font();
    let root = BitMapBackend::new(path, SIZE).into_drawing_area();
    root.fill(&WHITE).map_err(|e| error(path, e))?;
    let top = bars
        .iter()
        .map(|b| b.1 + if b.2.is_finite() { b.2 } else { 0.0 })
        .fold(0.0f64, f64::max)
        .max(1e-9)
        * 1.1;
    let bottom = bars.iter().map(|b| b.1).fold(0.0f64, f64::min) * 1.1;
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 24))
        .margin(15)
        .x_label_area_size(40)
        .y_label_area_size(70)
        // a segmented range holds its end as one more segment: stop one short of it
        .build_cartesian_2d(
            (0..bars.len().saturating_sub(1)).into_segmented(),
            bottom..top,
        )
        .map_err(|e| error(path, e))?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .y_desc(y_label)
        .x_label_formatter(&|x| match x {
            SegmentValue::CenterOf(k) => bars.get(*k).map_or(String::new(), |b| b.0.clone()),
            _ => String::new(),
        })
        .draw()
        .map_err(|e| error(path, e))?;
    for (k, (_, mean, ci)) in bars.iter().enumerate() {
        chart
            .draw_series(std::iter::once({
                let mut bar = Rectangle::new(
                    [
                        (SegmentValue::Exact(k), 0.0),
                        (SegmentValue::Exact(k + 1), *mean),
                    ],
                    color(k).mix(0.8).filled(),
                );
                bar.set_margin(0, 0, 12, 12);
                bar
            }))
            .map_err(|e| error(path, e))?;
        if ci.is_finite() {
            chart
                .draw_series(std::iter::once(PathElement::new(
                    vec![
                        (SegmentValue::CenterOf(k), mean - ci),
                        (SegmentValue::CenterOf(k), mean + ci),
                    ],
                    BLACK.stroke_width(2),
                )))
                .map_err(|e| error(path, e))?;
        }
    }
    root.present().map_err(|e| error(path, e))
}

/// How the x axis maps values.
#[derive(Clone, Copy, PartialEq, Eq, Debug, clap::ValueEnum)]
pub enum XScale {
    Linear,
    /// Base 10; points at x ≤ 0 have no place on it and are not drawn.
    Log,
}

/// Named line series over a shared x axis, with a legend.
pub fn lines(
    path: &Path,
    title: &str,
    axes: (&str, &str),
    series: &[(String, Vec<(f64, f64)>)],
    x_scale: XScale,
) -> anyhow::Result<()> {
    draw_lines(
        path,
        title,
        axes,
        series,
        x_scale,
        SeriesLabelPosition::UpperRight,
    )
}

fn draw_lines(
    path: &Path,
    title: &str,
    (x_label, y_label): (&str, &str),
    series: &[(String, Vec<(f64, f64)>)],
    x_scale: XScale,
    legend: SeriesLabelPosition,
) -> anyhow::Result<()> {
    // a log axis is drawn as log10(x) with ticks labelled by x itself
    let series: Vec<(&str, Vec<(f64, f64)>)> = series
        .iter()
        .map(|(name, data)| {
            let data = match x_scale {
                XScale::Linear => data.clone(),
                XScale::Log => data
                    .iter()
                    .filter(|p| p.0 > 0.0)
                    .map(|&(x, y)| (x.log10(), y))
                    .collect(),
            };
            (name.as_str(), data)
        })
        .collect();
    let tick = |v: &f64| match x_scale {
        XScale::Linear => format!("{v}"),
        XScale::Log => {
            let x = 10f64.powf(*v);
            // three significant digits, no trailing zeros
            let digits = (2 - x.abs().log10().floor() as i32).max(0) as usize;
            let text = format!("{x:.digits$}");
            if text.contains('.') {
                text.trim_end_matches('0').trim_end_matches('.').to_owned()
            } else {
                text
            }
        }
    };
    register_font();
    let root = BitMapBackend::new(path, SIZE).into_drawing_area();
    root.fill(&WHITE).map_err(|e| error(path, e))?;
    let points: Vec<(f64, f64)> = series.iter().flat_map(|s| s.1.iter().copied()).collect();
    let mut chart = xy_chart(&root, path, title, (x_label, y_label), &points, &tick)?;
    for (k, (name, data)) in series.iter().enumerate() {
        let c = color(k);
        chart
            .draw_series(LineSeries::new(data.iter().copied(), c.stroke_width(2)))
            .map_err(|e| error(path, e))?
            .label(*name)
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], c.stroke_width(2)));
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .position(legend)
        .draw()
        .map_err(|e| error(path, e))?;
    root.present().map_err(|e| error(path, e))
}

/// Empirical CDFs of named samples.
pub fn cdfs(
    path: &Path,
    title: &str,
    axes: (&str, &str),
    samples: &[(String, Vec<f64>)],
    x_scale: XScale,
) -> anyhow::Result<()> {
    let series: Vec<(String, Vec<(f64, f64)>)> = samples
        .iter()
        .map(|(name, values)| {
            let mut v: Vec<f64> = values.iter().copied().filter(|x| x.is_finite()).collect();
            v.sort_by(f64::total_cmp);
            let n = v.len().max(1) as f64;
            let steps = v
                .iter()
                .enumerate()
                .flat_map(|(k, &x)| [(x, k as f64 / n), (x, (k + 1) as f64 / n)])
                .collect();
            (name.clone(), steps)
        })
        .collect();
    draw_lines(
        path,
        title,
        axes,
        &series,
        x_scale,
        SeriesLabelPosition::LowerRight,
    )
}

/// A captioned chart on linear axes spanning `points`, with its mesh drawn.
fn xy_chart<'r, 'a>(
    root: &'r DrawingArea<BitMapBackend<'a>, Shift>,
    path: &Path,
    title: &str,
    (x_label, y_label): (&str, &str),
    points: &[(f64, f64)],
    x_tick: &dyn Fn(&f64) -> String,
) -> anyhow::Result<ChartContext<'r, BitMapBackend<'a>, Cartesian2d<RangedCoordf64, RangedCoordf64>>>
{
    let (x0, x1) = span(points.iter().map(|p| p.0));
    let (y0, y1) = span(points.iter().map(|p| p.1));
    let mut chart = ChartBuilder::on(root)
        .caption(title, ("sans-serif", 24))
        .margin(15)
        .x_label_area_size(45)
        .y_label_area_size(70)
        .build_cartesian_2d(x0..x1, y0..y1)
        .map_err(|e| error(path, e))?;
    chart
        .configure_mesh()
        .x_desc(x_label)
        .y_desc(y_label)
        .x_label_formatter(x_tick)
        .draw()
        .map_err(|e| error(path, e))?;
    Ok(chart)
}

/// Named point clouds on linear axes, with a legend.
pub fn scatter(
    path: &Path,
    title: &str,
    (x_label, y_label): (&str, &str),
    clouds: &[(String, Vec<(f64, f64)>)],
) -> anyhow::Result<()> {
    register_font();
    let root = BitMapBackend::new(path, SIZE).into_drawing_area();
    root.fill(&WHITE).map_err(|e| error(path, e))?;
    let points: Vec<(f64, f64)> = clouds.iter().flat_map(|c| c.1.iter().copied()).collect();
    let plain = |v: &f64| format!("{v:.1}");
    let mut chart = xy_chart(&root, path, title, (x_label, y_label), &points, &plain)?;
    for (k, (name, data)) in clouds.iter().enumerate() {
        let c = color(k);
        chart
            .draw_series(data.iter().map(|&p| Circle::new(p, 2, c.mix(0.6).filled())))
            .map_err(|e| error(path, e))?
            .label(name.as_str())
            .legend(move |(x, y)| Circle::new((x + 10, y), 4, c.filled()));
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .position(SeriesLabelPosition::UpperLeft)
        .draw()
        .map_err(|e| error(path, e))?;
    root.present().map_err(|e| error(path, e))
}

#[cfg(test)]
mod tests {
    use super::*;
    use schedlab_tests::png_size;

    #[test]
    fn the_moving_average_looks_back_only() {
        let points = [(0.0, 1.0), (1.0, 3.0), (2.0, 5.0), (3.0, 7.0)];
        assert_eq!(
            moving_average(&points, 2),
            vec![(0.0, 1.0), (1.0, 2.0), (2.0, 4.0), (3.0, 6.0)]
        );
        assert_eq!(moving_average(&points, 1), points.to_vec());
    }

    #[test]
    fn charts_are_valid_pngs_of_the_expected_size() {
        let dir = tempfile::tempdir().unwrap();
        let bar = dir.path().join("bars.png");
        bars(
            &bar,
            "GPU utilisation",
            "gpu_util",
            &[
                ("static".into(), 0.61, 0.02),
                ("raes".into(), 0.89, f64::NAN),
            ],
        )
        .unwrap();
        assert_eq!(png_size(&bar), SIZE);
        let cdf = dir.path().join("cdf.png");
        cdfs(
            &cdf,
            "JCT",
            ("seconds", "share of jobs"),
            &[
                ("fifo".into(), vec![3.0, 1.0, 2.0]),
                ("las".into(), vec![1.5]),
            ],
            XScale::Linear,
        )
        .unwrap();
        assert_eq!(png_size(&cdf), SIZE);
        let log = dir.path().join("log.png");
        lines(
            &log,
            "loss",
            ("seconds", "loss"),
            &[("a".into(), vec![(0.0, 2.0), (1.0, 1.0), (1000.0, 0.5)])],
            XScale::Log,
        )
        .unwrap();
        assert_eq!(png_size(&log), SIZE);
        let cloud = dir.path().join("scatter.png");
        scatter(
            &cloud,
            "SPD against FTG",
            ("SPD", "FTG"),
            &[("heft".into(), vec![(0.1, 0.02), (0.5, 0.3)])],
        )
        .unwrap();
        assert_eq!(png_size(&cloud), SIZE);
        // a blank image would compress to almost nothing: the chart drew something
        assert!(std::fs::metadata(&cdf).unwrap().len() > 5_000);
    }
}
