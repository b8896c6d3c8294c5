//! JSON for the requests hyper cannot parse. hyper answers a request line or a header it
//! cannot read (a raw `>` in the target, a header without a colon, a request over its
//! buffer) itself, before any service sees it, with an empty 400 (or 414, 431) and closes
//! the connection. [`JsonErrors`] wraps a connection's stream and, when hyper writes such
//! an answer, writes a JSON one in its place: the same status, `nosniff`, and a body like
//! every other 4xx of the API. Nothing else the server writes is touched (its own 4xx
//! always have a JSON body, so never `content-length: 0`).

use std::{
    io,
    pin::Pin,
    task::{Context, Poll},
};

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

use crate::ApiError;

/// A stream whose parse-error answers from hyper are rewritten as JSON.
#[derive(Debug)]
pub struct JsonErrors<T> {
    inner: T,
    /// The server's limits on a request target and its headers, named in 414 and 431.
    limits: (usize, usize),
    /// The JSON answer being written in place of hyper's, and how much of it is written,
    /// with the length of hyper's answer (reported written once ours is).
    replacing: Option<(Vec<u8>, usize, usize)>,
}

impl<T> JsonErrors<T> {
    /// Wraps `inner` of a server whose limits on a request target and on its headers are
    /// `limits` (bytes).
    pub fn new(inner: T, limits: (usize, usize)) -> JsonErrors<T> {
        JsonErrors {
            inner,
            limits,
            replacing: None,
        }
    }
}

/// hyper's own answer to a request it could not parse (400, 414 or 431), if `head` is
/// one: its status.
fn hyper_error_status(head: &[u8]) -> Option<u16> {
    let rest = head.strip_prefix(b"HTTP/1.1 ")?;
    let status: u16 = std::str::from_utf8(rest.get(..3)?).ok()?.parse().ok()?;
    let line_end = rest.windows(2).position(|w| w == b"\r\n")?;
    let headers = &rest[line_end..];
    let empty_and_closing = headers.starts_with(b"\r\nconnection: close\r\ncontent-length: 0\r\n");
    (matches!(status, 400 | 414 | 431) && empty_and_closing && head.ends_with(b"\r\n\r\n"))
        .then_some(status)
}

/// The JSON answer standing for hyper's empty one with `status`.
fn json_answer(status: u16, (uri_limit, header_limit): (usize, usize)) -> Vec<u8> {
    let error = match status {
        414 => ApiError::UriTooLong(uri_limit),
        431 => ApiError::HeadersTooLarge(header_limit),
        _ => ApiError::BadRequest(
            "the request line or a header cannot be parsed (in a URL, characters such as \
             < > \" { } | \\ ^ ` and spaces must be percent-encoded)"
                .into(),
        ),
    };
    let body = error.json_body();
    let reason = match status {
        414 => "URI Too Long",
        431 => "Request Header Fields Too Large",
        _ => "Bad Request",
    };
    let code = error.status().as_u16();
    let mut out = format!(
        "HTTP/1.1 {code} {reason}\r\nconnection: close\r\ncontent-type: application/json\r\n\
         x-content-type-options: nosniff\r\ncontent-length: {}\r\n\r\n",
        body.len()
    )
    .into_bytes();
    out.extend_from_slice(&body);
    out
}

impl<T: AsyncRead + Unpin> AsyncRead for JsonErrors<T> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_read(cx, buf)
    }
}

impl<T: AsyncWrite + Unpin> AsyncWrite for JsonErrors<T> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = &mut *self;
        if this.replacing.is_none() {
            match hyper_error_status(buf) {
                Some(status) => {
                    this.replacing = Some((json_answer(status, this.limits), 0, buf.len()));
                }
                None => return Pin::new(&mut this.inner).poll_write(cx, buf),
            }
        }
        let Some((answer, written, theirs)) = this.replacing.as_mut() else {
            return Poll::Ready(Ok(0));
        };
        while *written < answer.len() {
            match Pin::new(&mut this.inner).poll_write(cx, &answer[*written..]) {
                Poll::Ready(Ok(0)) => return Poll::Ready(Err(io::ErrorKind::WriteZero.into())),
                Poll::Ready(Ok(n)) => *written += n,
                other => return other,
            }
        }
        let theirs = *theirs;
        this.replacing = None;
        Poll::Ready(Ok(theirs))
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        // hyper's error answer is a head alone: one slice.
        let first = bufs.iter().find(|b| !b.is_empty());
        match first {
            Some(head) if self.replacing.is_some() || hyper_error_status(head).is_some() => {
                self.poll_write(cx, head)
            }
            _ => Pin::new(&mut self.inner).poll_write_vectored(cx, bufs),
        }
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_hypers_empty_error_answers_are_replaced() {
        let hyper = b"HTTP/1.1 400 Bad Request\r\nconnection: close\r\ncontent-length: 0\r\ndate: Sat, 05 Dec 2026 00:09:22 GMT\r\n\r\n";
        assert_eq!(hyper_error_status(hyper), Some(400));
        let ours = b"HTTP/1.1 400 Bad Request\r\ncontent-type: application/json\r\ncontent-length: 57\r\n\r\n";
        assert_eq!(hyper_error_status(ours), None);
        let ok = b"HTTP/1.1 200 OK\r\nconnection: close\r\ncontent-length: 0\r\n\r\n";
        assert_eq!(hyper_error_status(ok), None);
        let answer = String::from_utf8(json_answer(400, (8192, 16384))).expect("text");
        let (head, body) = answer.split_once("\r\n\r\n").expect("a head and a body");
        assert!(
            head.contains(&format!("content-length: {}", body.len())),
            "{head}"
        );
        let json: serde_json::Value = serde_json::from_str(body).expect("JSON");
        assert_eq!(json["status"], 400);
        assert_eq!(json["kind"], "bad_request");
    }
}
