//! Presentation of `mirror values`: the score-against-material chart as SVG.

use mirror_core::values::{Steepness, sigmoid};

/// An SVG chart of the binned scores and the fitted logistic curve.
pub fn steepness_svg(s: &Steepness, title: &str) -> String {
    let (w, h, pad) = (640.0, 400.0, 50.0);
    let x = |dm: f64| pad + (dm + 20.0) / 40.0 * (w - 2.0 * pad);
    let y = |score: f64| h - pad - score * (h - 2.0 * pad);
    let mut out = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\" font-family=\"sans-serif\" font-size=\"12\">\n\
         <rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n\
         <text x=\"{}\" y=\"20\" text-anchor=\"middle\" font-size=\"14\">{}</text>\n",
        w / 2.0,
        xml_escape(title)
    );
    // Axes and grid.
    out.push_str(&format!(
        "<line x1=\"{pad}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"black\"/>\n<line x1=\"{pad}\" y1=\"{pad}\" x2=\"{pad}\" y2=\"{}\" stroke=\"black\"/>\n",
        h - pad,
        w - pad,
        h - pad,
        h - pad
    ));
    for dm in (-20..=20).step_by(5) {
        let px = x(f64::from(dm));
        out.push_str(&format!(
            "<line x1=\"{px}\" y1=\"{}\" x2=\"{px}\" y2=\"{}\" stroke=\"black\"/><text x=\"{px}\" y=\"{}\" text-anchor=\"middle\">{dm}</text>\n",
            h - pad,
            h - pad + 5.0,
            h - pad + 20.0
        ));
    }
    for tick in [0.0, 0.25, 0.5, 0.75, 1.0] {
        let py = y(tick);
        out.push_str(&format!(
            "<line x1=\"{}\" y1=\"{py}\" x2=\"{}\" y2=\"{py}\" stroke=\"#ddd\"/><text x=\"{}\" y=\"{}\" text-anchor=\"end\">{tick}</text>\n",
            pad,
            w - pad,
            pad - 6.0,
            py + 4.0
        ));
    }
    out.push_str(&format!(
        "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">material balance (1-3-3-5-9), White minus Black</text>\n<text x=\"14\" y=\"{}\" transform=\"rotate(-90 14 {})\" text-anchor=\"middle\">White's score</text>\n",
        w / 2.0,
        h - 12.0,
        h / 2.0,
        h / 2.0
    ));
    // Curve.
    let mut path = String::new();
    for i in 0..=400 {
        let dm = -20.0 + f64::from(i) * 0.1;
        let cmd = if i == 0 { 'M' } else { 'L' };
        path.push_str(&format!(
            "{cmd}{:.1},{:.1} ",
            x(dm),
            y(sigmoid(s.alpha * dm))
        ));
    }
    out.push_str(&format!(
        "<path d=\"{path}\" fill=\"none\" stroke=\"#c00\" stroke-width=\"2\"/>\n"
    ));
    // Points, area growing with the number of samples.
    let most = s.bins.iter().map(|b| b.2).max().unwrap_or(1) as f64;
    for (dm, score, n) in &s.bins {
        let r = 2.0 + 6.0 * (*n as f64 / most).sqrt();
        out.push_str(&format!(
            "<circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"{r:.1}\" fill=\"#2060c0\" fill-opacity=\"0.7\"><title>{dm}: {score:.3} ({n} samples)</title></circle>\n",
            x(f64::from(*dm)),
            y(*score)
        ));
    }
    out.push_str(&format!(
        "<text x=\"{}\" y=\"{}\" fill=\"#c00\">1 / (1 + exp(-{:.3} dM))</text>\n</svg>\n",
        w - pad - 190.0,
        h - pad - 20.0,
        s.alpha
    ));
    out
}

fn xml_escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}
