//! CORS for the web-chat API: a page on an origin the bot lists
//! (`webchat_origins`) may call it from the browser, preflight included; any other
//! origin gets no CORS headers (the browser then refuses the answer) and a 403
//! preflight. Requests without an `Origin` (servers, `tendero chat`) pass as ever.

use axum::extract::{Request, State};
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::Web;

pub async fn webchat(State(state): State<Web>, request: Request, next: Next) -> Response {
    let Some(origin) = request.headers().get(header::ORIGIN).cloned() else {
        return next.run(request).await;
    };
    // `/webchat/{bot}/…`
    let slug = request.uri().path().split('/').nth(2).unwrap_or_default();
    let allowed = match state.bots.get_promptly(slug).await {
        Ok(Some(entry)) => origin
            .to_str()
            .is_ok_and(|o| entry.bot.webchat_origins.iter().any(|a| a == o)),
        _ => false,
    };
    if request.method() == Method::OPTIONS {
        if !allowed {
            return (StatusCode::FORBIDDEN, [(header::VARY, "Origin")]).into_response();
        }
        let mut response = StatusCode::NO_CONTENT.into_response();
        let headers = response.headers_mut();
        allow(headers, origin);
        headers.insert(
            header::ACCESS_CONTROL_ALLOW_METHODS,
            HeaderValue::from_static("GET, POST, OPTIONS"),
        );
        headers.insert(
            header::ACCESS_CONTROL_ALLOW_HEADERS,
            HeaderValue::from_static("content-type, authorization, last-event-id"),
        );
        headers.insert(
            header::ACCESS_CONTROL_MAX_AGE,
            HeaderValue::from_static("600"),
        );
        return response;
    }
    let mut response = next.run(request).await;
    if allowed {
        allow(response.headers_mut(), origin);
    } else {
        response
            .headers_mut()
            .append(header::VARY, HeaderValue::from_static("Origin"));
    }
    response
}

fn allow(headers: &mut axum::http::HeaderMap, origin: HeaderValue) {
    headers.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, origin);
    headers.append(header::VARY, HeaderValue::from_static("Origin"));
}
