//! One error type for the API, mapped to an HTTP status and a JSON body in one place.

use axum::{
    Json,
    http::StatusCode,
    response::{IntoResponse, Response},
};
use serde::Serialize;

/// What went wrong with a request.
#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    /// The request is malformed: a parameter is missing or invalid.
    #[error("{0}")]
    BadRequest(String),
    /// The player is not in the store.
    #[error("unknown player {0:?}")]
    UnknownPlayer(String),
    /// No such route.
    #[error("no such endpoint: {0}")]
    NotFound(String),
    /// The game asked for is not one of the player's.
    #[error("no game {id:?} among {player}'s games")]
    UnknownGame {
        /// The player.
        player: String,
        /// The id asked for.
        id: String,
    },
    /// The route exists, the method does not.
    #[error("method {method} not allowed for {path}")]
    MethodNotAllowed {
        /// The method used.
        method: String,
        /// The path.
        path: String,
    },
    /// The body is larger than allowed.
    #[error("request body too large (limit {0} bytes)")]
    TooLarge(usize),
    /// The body is not JSON.
    #[error("{0}")]
    UnsupportedMediaType(String),
    /// Well-formed but impossible (e.g. a move asked for a finished game).
    #[error("{0}")]
    Unprocessable(String),
    /// The server is overloaded.
    #[error("server busy, try again")]
    Busy,
    /// Too much of one kind of work waiting (imports): try again when some has ended.
    #[error("{0}")]
    TooMany(String),
    /// A write without the server's token (see [`crate::Writes`]).
    #[error("{0}")]
    Unauthorized(String),
    /// Not allowed from where it came (another site, another host name).
    #[error("{0}")]
    Forbidden(String),
    /// The request took longer than the server allows.
    #[error("the request took longer than {0} s")]
    TimedOut(u64),
    /// The request's body did not arrive in time.
    #[error("the request's body did not arrive within {0} s")]
    BodyTimedOut(u64),
    /// The request's target is longer than the server reads.
    #[error("request target too long (limit {0} bytes)")]
    UriTooLong(usize),
    /// The request's headers are larger than the server reads.
    #[error("request headers too large (limit {0} bytes)")]
    HeadersTooLarge(usize),
    /// A failure of the server itself.
    #[error("internal error: {0}")]
    Internal(String),
}

#[derive(Serialize)]
struct Body<'a> {
    error: String,
    status: u16,
    kind: &'a str,
}

impl ApiError {
    /// The JSON body of this error's answer.
    pub(crate) fn json_body(&self) -> Vec<u8> {
        let body = Body {
            error: self.to_string(),
            status: self.status().as_u16(),
            kind: self.kind(),
        };
        serde_json::to_vec(&body).expect("a struct of strings and numbers serializes")
    }

    /// The HTTP status.
    pub fn status(&self) -> StatusCode {
        match self {
            ApiError::BadRequest(_) => StatusCode::BAD_REQUEST,
            ApiError::UnknownPlayer(_) | ApiError::NotFound(_) | ApiError::UnknownGame { .. } => {
                StatusCode::NOT_FOUND
            }
            ApiError::MethodNotAllowed { .. } => StatusCode::METHOD_NOT_ALLOWED,
            ApiError::TooLarge(_) => StatusCode::PAYLOAD_TOO_LARGE,
            ApiError::UnsupportedMediaType(_) => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            ApiError::Unprocessable(_) => StatusCode::UNPROCESSABLE_ENTITY,
            ApiError::Busy => StatusCode::SERVICE_UNAVAILABLE,
            ApiError::TooMany(_) => StatusCode::TOO_MANY_REQUESTS,
            ApiError::Unauthorized(_) => StatusCode::UNAUTHORIZED,
            ApiError::Forbidden(_) => StatusCode::FORBIDDEN,
            ApiError::TimedOut(_) => StatusCode::SERVICE_UNAVAILABLE,
            ApiError::BodyTimedOut(_) => StatusCode::REQUEST_TIMEOUT,
            ApiError::UriTooLong(_) => StatusCode::URI_TOO_LONG,
            ApiError::HeadersTooLarge(_) => StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE,
            ApiError::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    fn kind(&self) -> &'static str {
        match self {
            ApiError::BadRequest(_) => "bad_request",
            ApiError::UnknownPlayer(_) => "unknown_player",
            ApiError::UnknownGame { .. } => "unknown_game",
            ApiError::NotFound(_) => "not_found",
            ApiError::MethodNotAllowed { .. } => "method_not_allowed",
            ApiError::TooLarge(_) => "too_large",
            ApiError::UnsupportedMediaType(_) => "unsupported_media_type",
            ApiError::Unprocessable(_) => "unprocessable",
            ApiError::Busy => "busy",
            ApiError::TooMany(_) => "too_many",
            ApiError::Unauthorized(_) => "unauthorized",
            ApiError::Forbidden(_) => "forbidden",
            ApiError::TimedOut(_) => "timed_out",
            ApiError::BodyTimedOut(_) => "body_timed_out",
            ApiError::UriTooLong(_) => "uri_too_long",
            ApiError::HeadersTooLarge(_) => "headers_too_large",
            ApiError::Internal(_) => "internal",
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let status = self.status();
        if status.is_server_error() && !matches!(self, ApiError::Busy | ApiError::TimedOut(_)) {
            // The server's own failure: logged with its cause (the client sees the message).
            tracing::error!(status = status.as_u16(), error = %self, "request failed");
        }
        let body = Body {
            error: self.to_string(),
            status: status.as_u16(),
            kind: self.kind(),
        };
        // Also for the answers given before routing (403, 414, 431, 503 in `listen.rs`),
        // which the request layer that adds it to every routed answer does not see.
        (
            status,
            [(
                axum::http::header::X_CONTENT_TYPE_OPTIONS,
                axum::http::HeaderValue::from_static("nosniff"),
            )],
            Json(body),
        )
            .into_response()
    }
}

/// `e` and each of its causes, joined by ": ".
pub fn with_causes(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut cause = e.source();
    while let Some(c) = cause {
        text.push_str(": ");
        text.push_str(&c.to_string());
        cause = c.source();
    }
    text
}

impl From<mirror_engine::EngineError> for ApiError {
    fn from(e: mirror_engine::EngineError) -> ApiError {
        match e {
            e @ mirror_engine::EngineError::NoLegalMoves { .. } => {
                ApiError::Unprocessable(e.to_string())
            }
            mirror_engine::EngineError::Store(s) => s.into(),
            // The server's search engine failed: its cause goes with the 500.
            e @ mirror_engine::EngineError::Search(_) => ApiError::Internal(with_causes(&e)),
        }
    }
}

impl From<mirror_store::StoreError> for ApiError {
    fn from(e: mirror_store::StoreError) -> Self {
        match e {
            mirror_store::StoreError::InvalidPlayer(e) => ApiError::BadRequest(e.to_string()),
            // The cause goes with it: logged with the 500, and in its body.
            other => ApiError::Internal(with_causes(&other)),
        }
    }
}
