//! http(s) inputs, read as they arrive.
//!
//! A Common Crawl WARC is about 1 GB and its download is the slowest part
//! of reading it; a connection dropped at 900 MB must not cost the 900 MB.
//! [`HttpBody`] reads a body front to back and, when the connection drops
//! (an error, or the end before the `Content-Length`), asks again from the
//! byte it got to (`Range: bytes=N-`), up to [`RemoteOptions::retries`]
//! times in a row with a doubling pause. A server that answers a range
//! with the whole body again (`200`, not `206`) cannot resume: the read
//! fails there rather than read the start twice.

use std::io::{self, Read};
use std::time::Duration;

use ureq::http::StatusCode;
use ureq::{Agent, BodyReader};

/// How http(s) inputs are fetched.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RemoteOptions {
    /// Attempts to resume after a dropped connection, in a row (reset by
    /// every read that brings bytes). Default 5.
    pub retries: u32,
    /// Pause before the first retry; doubled for each next one. Default 1 s.
    pub backoff: Duration,
    /// Longest wait to connect, and for any one read. Default 60 s.
    pub timeout: Duration,
}

impl Default for RemoteOptions {
    fn default() -> Self {
        RemoteOptions {
            retries: 5,
            backoff: Duration::from_secs(1),
            timeout: Duration::from_secs(60),
        }
    }
}

/// Whether `input` names an http(s) resource rather than a local path.
pub fn is_remote(input: &str) -> bool {
    let lower = input.get(..8).unwrap_or(input).to_ascii_lowercase();
    lower.starts_with("http://") || lower.starts_with("https://")
}

/// The body of an http(s) resource, resumed after dropped connections.
pub struct HttpBody {
    agent: Agent,
    url: String,
    options: RemoteOptions,
    body: Option<BodyReader<'static>>,
    /// Bytes of the body read so far.
    pos: u64,
    /// The body's length, when the server said it.
    len: Option<u64>,
    /// `Content-Type` of the first answer.
    content_type: Option<String>,
    /// `Content-Language` of the first answer.
    content_language: Option<String>,
    /// Retries left before the read fails.
    retries_left: u32,
    /// Connections dropped and resumed so far.
    resumed: u32,
}

impl HttpBody {
    /// Asks for `url`; an error when it cannot be reached (after the
    /// retries) or answers other than 2xx.
    pub fn open(url: &str, options: &RemoteOptions) -> io::Result<HttpBody> {
        let agent: Agent = Agent::config_builder()
            .http_status_as_error(false)
            .timeout_connect(Some(options.timeout))
            .timeout_per_read(Some(options.timeout))
            .user_agent(concat!("canopy/", env!("CARGO_PKG_VERSION")))
            .build()
            .into();
        let mut body = HttpBody {
            agent,
            url: url.to_string(),
            options: options.clone(),
            body: None,
            pos: 0,
            len: None,
            content_type: None,
            content_language: None,
            retries_left: options.retries,
            resumed: 0,
        };
        body.connect_with_retries()?;
        Ok(body)
    }

    /// `Content-Type` of the answer, if it said one.
    pub fn content_type(&self) -> Option<&str> {
        self.content_type.as_deref()
    }

    /// `Content-Language` of the answer, if it said one.
    pub fn content_language(&self) -> Option<&str> {
        self.content_language.as_deref()
    }

    /// The body's length, when the server said it.
    pub fn content_length(&self) -> Option<u64> {
        self.len
    }

    /// Bytes read so far.
    pub fn position(&self) -> u64 {
        self.pos
    }

    /// Connections dropped and resumed so far.
    pub fn resumed(&self) -> u32 {
        self.resumed
    }

    fn connect_with_retries(&mut self) -> io::Result<()> {
        loop {
            match self.connect() {
                Ok(()) => return Ok(()),
                Err(Failure::Network(_)) if self.retries_left > 0 => self.pause(),
                Err(Failure::Network(e) | Failure::Answer(e)) => return Err(e),
            }
        }
    }

    fn pause(&mut self) {
        let done = self.options.retries - self.retries_left;
        self.retries_left -= 1;
        std::thread::sleep(self.options.backoff.saturating_mul(1 << done.min(10)));
    }

    /// One request, from byte `pos` on.
    fn connect(&mut self) -> Result<(), Failure> {
        let mut request = self.agent.get(&self.url);
        if self.pos > 0 {
            request = request.header("Range", format!("bytes={}-", self.pos));
        }
        let response = request
            .call()
            .map_err(|e| Failure::Network(self.error(e.to_string())))?;
        let status = response.status();
        let header = |name: &str| {
            response
                .headers()
                .get(name)
                .and_then(|v| v.to_str().ok())
                .map(str::to_string)
        };
        if self.pos == 0 {
            if !status.is_success() {
                return Err(Failure::Answer(status_error(&self.url, status)));
            }
            self.content_type = header("content-type");
            self.content_language = header("content-language");
            self.len = header("content-length").and_then(|l| l.trim().parse().ok());
        } else if status == StatusCode::PARTIAL_CONTENT {
            let start = header("content-range").and_then(|r| range_start(&r));
            if start != Some(self.pos) {
                return Err(Failure::Answer(self.error(format!(
                    "asked to resume at byte {}, the server answered Content-Range {:?}",
                    self.pos,
                    header("content-range")
                ))));
            }
        } else if status.is_success() {
            return Err(Failure::Answer(self.error(format!(
                "the connection dropped at byte {} and the server does not resume \
                 (it answered a Range request with {status})",
                self.pos
            ))));
        } else {
            return Err(Failure::Answer(status_error(&self.url, status)));
        }
        self.body = Some(response.into_body().into_reader());
        Ok(())
    }

    fn error(&self, what: String) -> io::Error {
        io::Error::other(format!("{}: {what}", self.url))
    }

    /// Whether the body ended before the length the server announced.
    fn ended_early(&self) -> bool {
        self.len.is_some_and(|len| self.pos < len)
    }
}

impl Read for HttpBody {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        loop {
            let got = match self.body.as_mut() {
                Some(body) => body.read(buf),
                None => Ok(0),
            };
            let dropped = match got {
                Ok(0) if self.body.is_some() && self.ended_early() => {
                    format!("the body ended at byte {} of {:?}", self.pos, self.len)
                }
                Ok(n) => {
                    if n > 0 {
                        self.pos += n as u64;
                        self.retries_left = self.options.retries;
                    }
                    return Ok(n);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => e.to_string(),
            };
            self.body = None;
            if self.retries_left == 0 {
                return Err(self.error(format!(
                    "gave up after {} retries at byte {}: {dropped}",
                    self.options.retries, self.pos
                )));
            }
            self.pause();
            self.resumed += 1;
            match self.connect() {
                // A failed reconnection is one more drop: the loop retries.
                Ok(()) | Err(Failure::Network(_)) => {}
                Err(Failure::Answer(e)) => return Err(e),
            }
        }
    }
}

/// Why a request failed: the network (worth another try) or the
/// server's answer (final).
enum Failure {
    Network(io::Error),
    Answer(io::Error),
}

fn status_error(url: &str, status: StatusCode) -> io::Error {
    let kind = if status == StatusCode::NOT_FOUND {
        io::ErrorKind::NotFound
    } else {
        io::ErrorKind::Other
    };
    io::Error::new(kind, format!("{url}: the server answered {status}"))
}

/// The first byte of a `Content-Range: bytes START-END/LEN`.
fn range_start(header: &str) -> Option<u64> {
    let rest = header.trim().strip_prefix("bytes")?.trim_start();
    rest.split('-').next()?.trim().parse().ok()
}

/// A whole http(s) resource (a page for `canopy page`) with the headers
/// a WARC record would keep for it.
#[derive(Debug)]
pub struct Fetched {
    /// The body.
    pub bytes: Vec<u8>,
    /// `Content-Type`, which may name the charset.
    pub content_type: Option<String>,
    /// `Content-Language`: the page's declared language when detection is
    /// unsure, as for a crawled record.
    pub content_language: Option<String>,
}

/// Reads a whole http(s) resource of at most `max_bytes`.
pub fn fetch(url: &str, options: &RemoteOptions, max_bytes: usize) -> io::Result<Fetched> {
    let body = HttpBody::open(url, options)?;
    let content_type = body.content_type().map(str::to_string);
    let content_language = body.content_language().map(str::to_string);
    let mut bytes = Vec::new();
    body.take(max_bytes as u64 + 1).read_to_end(&mut bytes)?;
    if bytes.len() > max_bytes {
        return Err(io::Error::other(format!(
            "{url}: larger than {max_bytes} bytes"
        )));
    }
    Ok(Fetched {
        bytes,
        content_type,
        content_language,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn content_range_start() {
        assert_eq!(range_start("bytes 100-199/200"), Some(100));
        assert_eq!(range_start("bytes 0-0/*"), Some(0));
        assert_eq!(range_start("items 1-2"), None);
    }

    #[test]
    fn remote_inputs_by_scheme() {
        assert!(is_remote("https://data.commoncrawl.org/x.warc.gz"));
        assert!(is_remote("HTTP://example.com/"));
        assert!(!is_remote("data/x.warc.gz"));
        assert!(!is_remote("http"));
    }
}
