//! An error and its causes as one line for people: `what: why: deeper why`, each cause
//! said once. A library error that names its cause in its own message (`cannot read F:
//! No such file or directory`) and also keeps it as its source would otherwise print
//! the cause twice.

/// `err` and its chain of sources, joined by `: `, leaving out a cause whose text the
/// line already ends with.
pub fn error_text(err: &(dyn std::error::Error + 'static)) -> String {
    let mut text = err.to_string();
    let mut cause = err.source();
    while let Some(c) = cause {
        let said = c.to_string();
        if !said.is_empty() && !text.ends_with(&said) {
            text.push_str(": ");
            text.push_str(&said);
        }
        cause = c.source();
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, thiserror::Error)]
    #[error("cannot read {path}: {source}")]
    struct Unreadable {
        path: String,
        source: std::io::Error,
    }

    #[derive(Debug, thiserror::Error)]
    #[error("ingest failed")]
    struct Outer(#[source] Unreadable);

    #[test]
    fn each_cause_is_said_once() {
        let io = || std::io::Error::new(std::io::ErrorKind::NotFound, "no such file");
        let inner = Unreadable {
            path: "/x.pgn".into(),
            source: io(),
        };
        assert_eq!(error_text(&inner), "cannot read /x.pgn: no such file");
        let outer = Outer(Unreadable {
            path: "/x.pgn".into(),
            source: io(),
        });
        assert_eq!(
            error_text(&outer),
            "ingest failed: cannot read /x.pgn: no such file"
        );
        // A cause not in the message is added.
        #[derive(Debug, thiserror::Error)]
        #[error("store failed")]
        struct Store(#[source] std::io::Error);
        assert_eq!(error_text(&Store(io())), "store failed: no such file");
    }
}
