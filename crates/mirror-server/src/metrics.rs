//! Prometheus text metrics: requests and errors by route and status, latency histogram.

use std::{collections::BTreeMap, fmt::Write, sync::Mutex, time::Duration};

/// Upper bounds of the latency buckets, in seconds.
const BUCKETS: [f64; 12] = [
    0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1.0, 5.0,
];

#[derive(Default)]
struct Histogram {
    counts: [u64; BUCKETS.len()],
    count: u64,
    sum: f64,
}

/// All metrics of the server.
#[derive(Default)]
pub struct Metrics {
    requests: Mutex<BTreeMap<(String, u16), u64>>,
    latency: Mutex<BTreeMap<String, Histogram>>,
}

impl std::fmt::Debug for Metrics {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Metrics")
    }
}

impl Metrics {
    /// Records one finished request.
    pub fn record(&self, route: &str, status: u16, elapsed: Duration) {
        if let Ok(mut r) = self.requests.lock() {
            *r.entry((route.to_string(), status)).or_default() += 1;
        }
        if let Ok(mut l) = self.latency.lock() {
            let h = l.entry(route.to_string()).or_default();
            let secs = elapsed.as_secs_f64();
            for (i, b) in BUCKETS.iter().enumerate() {
                if secs <= *b {
                    h.counts[i] += 1;
                }
            }
            h.count += 1;
            h.sum += secs;
        }
    }

    /// The metrics in Prometheus's text format.
    pub fn render(&self) -> String {
        let mut out = String::new();
        out.push_str("# HELP mirror_http_requests_total HTTP requests by route and status.\n");
        out.push_str("# TYPE mirror_http_requests_total counter\n");
        let mut errors: BTreeMap<String, u64> = BTreeMap::new();
        if let Ok(r) = self.requests.lock() {
            for ((route, status), n) in r.iter() {
                let _ = writeln!(
                    out,
                    "mirror_http_requests_total{{route=\"{route}\",status=\"{status}\"}} {n}"
                );
                if *status >= 400 {
                    *errors.entry(route.clone()).or_default() += n;
                }
            }
        }
        out.push_str(
            "# HELP mirror_http_errors_total HTTP answers with status 4xx or 5xx by route.\n",
        );
        out.push_str("# TYPE mirror_http_errors_total counter\n");
        for (route, n) in &errors {
            let _ = writeln!(out, "mirror_http_errors_total{{route=\"{route}\"}} {n}");
        }
        out.push_str("# HELP mirror_http_request_duration_seconds Time to answer, by route.\n");
        out.push_str("# TYPE mirror_http_request_duration_seconds histogram\n");
        if let Ok(l) = self.latency.lock() {
            for (route, h) in l.iter() {
                for (i, b) in BUCKETS.iter().enumerate() {
                    let _ = writeln!(
                        out,
                        "mirror_http_request_duration_seconds_bucket{{route=\"{route}\",le=\"{b}\"}} {}",
                        h.counts[i]
                    );
                }
                let _ = writeln!(
                    out,
                    "mirror_http_request_duration_seconds_bucket{{route=\"{route}\",le=\"+Inf\"}} {}\nmirror_http_request_duration_seconds_sum{{route=\"{route}\"}} {}\nmirror_http_request_duration_seconds_count{{route=\"{route}\"}} {}",
                    h.count, h.sum, h.count
                );
            }
        }
        out
    }
}
