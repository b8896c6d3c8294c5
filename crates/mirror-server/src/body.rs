//! Request bodies read by the handler itself, after the token is checked: within a size
//! bound enforced as the bytes arrive (and at once from a `Content-Length` over it) and
//! within a deadline, so that a client that sends a body slowly, or never, holds nothing
//! for long. Uploads go to a file as they arrive instead of memory.

use std::time::Duration;

use axum::{
    body::{Body, Bytes},
    http::{HeaderMap, header},
};
use http_body_util::BodyExt;

use crate::error::ApiError;

/// The time a client has to send the whole body of a small request (`POST /api/v1/ingest`,
/// whose own run has no time limit).
pub const BODY_DEADLINE: Duration = Duration::from_secs(10);

/// The time a client has to send an upload (`POST /api/v1/imports/pgn`): 64 MiB at about
/// 1 MiB/s.
pub const UPLOAD_DEADLINE: Duration = Duration::from_secs(60);

/// Bytes buffered before an upload's next write to its file.
const UPLOAD_CHUNK: usize = 1 << 20;

/// Refuses a body whose `Content-Length` is over `limit` before any of it is read.
fn declared_within(headers: &HeaderMap, limit: usize) -> Result<(), ApiError> {
    let declared = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok());
    match declared {
        Some(n) if n > limit as u64 => Err(ApiError::TooLarge(limit)),
        _ => Ok(()),
    }
}

/// The next piece of data of `body` within `deadline` of `start`; `None` at its end.
async fn next_data(
    body: &mut Body,
    start: tokio::time::Instant,
    deadline: Duration,
) -> Result<Option<Bytes>, ApiError> {
    loop {
        let frame = tokio::time::timeout_at(start + deadline, body.frame())
            .await
            .map_err(|_| ApiError::BodyTimedOut(deadline.as_secs()))?;
        let Some(frame) = frame else {
            return Ok(None);
        };
        let frame = frame.map_err(|e| ApiError::BadRequest(format!("the body broke off: {e}")))?;
        if let Ok(data) = frame.into_data() {
            return Ok(Some(data));
        }
    }
}

/// The whole of `body`: at most `limit` bytes, all of them within `deadline`.
pub async fn read(
    body: Body,
    headers: &HeaderMap,
    limit: usize,
    deadline: Duration,
) -> Result<Bytes, ApiError> {
    declared_within(headers, limit)?;
    let start = tokio::time::Instant::now();
    let mut body = body;
    let mut out = Vec::new();
    while let Some(data) = next_data(&mut body, start, deadline).await? {
        if out.len() + data.len() > limit {
            return Err(ApiError::TooLarge(limit));
        }
        out.extend_from_slice(&data);
    }
    Ok(Bytes::from(out))
}

/// A JSON body of `headers` and `bytes`, or the error naming why it is not one.
pub fn json(headers: &HeaderMap, bytes: &[u8]) -> Result<serde_json::Value, ApiError> {
    let is_json = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|mime| {
            let mime = mime.trim().to_ascii_lowercase();
            mime == "application/json" || mime.ends_with("+json")
        });
    if !is_json {
        return Err(ApiError::UnsupportedMediaType(
            "send the body as JSON with Content-Type: application/json".into(),
        ));
    }
    serde_json::from_slice(bytes)
        .map_err(|e| ApiError::BadRequest(format!("invalid JSON body: {e}")))
}

/// Writes `body` to a new temporary file as it arrives (at most `limit` bytes, all within
/// `deadline`) and returns the file, removed when the path is dropped (a refused or
/// broken upload leaves nothing behind), and its size.
pub async fn to_file(
    body: Body,
    headers: &HeaderMap,
    limit: usize,
    deadline: Duration,
    suffix: &'static str,
) -> Result<(tempfile::TempPath, usize), ApiError> {
    declared_within(headers, limit)?;
    let saving = |e: std::io::Error| ApiError::Internal(format!("the upload was not saved: {e}"));
    let file = tokio::task::spawn_blocking(move || {
        tempfile::Builder::new()
            .prefix("mirror-upload-")
            .suffix(suffix)
            .tempfile()
    })
    .await
    .map_err(|e| ApiError::Internal(format!("the upload was not saved: {e}")))?
    .map_err(saving)?;
    let (mut file, path) = file.into_parts();
    let start = tokio::time::Instant::now();
    let mut body = body;
    let mut total = 0usize;
    let mut pending: Vec<u8> = Vec::new();
    loop {
        let data = next_data(&mut body, start, deadline).await?;
        let end = data.is_none();
        if let Some(data) = data {
            total += data.len();
            if total > limit {
                return Err(ApiError::TooLarge(limit));
            }
            pending.extend_from_slice(&data);
        }
        if pending.len() >= UPLOAD_CHUNK || (end && !pending.is_empty()) {
            let chunk = std::mem::take(&mut pending);
            file = tokio::task::spawn_blocking(move || {
                std::io::Write::write_all(&mut file, &chunk).map(|()| file)
            })
            .await
            .map_err(|e| ApiError::Internal(format!("the upload was not saved: {e}")))?
            .map_err(saving)?;
        }
        if end {
            return Ok((path, total));
        }
    }
}
