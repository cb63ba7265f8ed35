//! JSON-RPC over a byte stream, framed as LSP frames it (`Content-Length` headers):
//! one message at a time, and a malformed one is an error to answer, never the end
//! of the connection (`lsp-server`'s own reader stops at the first bad message).

use std::io::{BufRead, Read, Write};

use lsp_server::{ErrorCode, Message, Notification, Request, RequestId, Response};
use serde_json::Value;

use super::outline::{Id, Method, Outline};

/// The largest message read; a larger one is skipped and answered with an error.
pub(crate) const MAX_MESSAGE_BYTES: usize = 64 * 1024 * 1024;

/// The longest header line read; the rest of a longer one is skipped unread, and
/// its frame answered with an error.
const MAX_HEADER_LINE_BYTES: u64 = 8 * 1024;

/// What the reader found in the stream.
#[derive(Debug)]
pub(crate) enum Incoming {
    /// A well-formed message.
    Message(Message),
    /// A frame that is not a message: the error response it gets (with the id it
    /// carried, if one could be read; JSON-RPC's null otherwise).
    Malformed(serde_json::Value),
}

/// Reads the next frame of `input`; `None` at the end of the stream.
pub(crate) fn read(input: &mut impl BufRead) -> std::io::Result<Option<Incoming>> {
    let mut length: Option<usize> = None;
    let mut header_error: Option<String> = None;
    let mut line = String::new();
    let mut seen_header = false;
    let mut overlong = false;
    loop {
        line.clear();
        if Read::take(&mut *input, MAX_HEADER_LINE_BYTES).read_line(&mut line)? == 0 {
            return Ok(None);
        }
        if !line.ends_with('\n') && line.len() as u64 >= MAX_HEADER_LINE_BYTES {
            input.skip_until(b'\n')?;
            seen_header = true;
            overlong = true;
            continue;
        }
        let trimmed = line.trim_end_matches(['\r', '\n']);
        if trimmed.is_empty() {
            if seen_header {
                break;
            }
            // Blank lines between frames are skipped.
            continue;
        }
        seen_header = true;
        match trimmed.split_once(':') {
            Some((name, value)) if name.eq_ignore_ascii_case("content-length") => {
                match value.trim().parse::<usize>() {
                    Ok(parsed) => length = Some(parsed),
                    Err(_) => header_error = Some(format!("bad Content-Length `{}`", value.trim())),
                }
            }
            Some(_) => {}
            None => header_error = Some(format!("bad header line `{}`", shorten(trimmed))),
        }
    }
    if overlong {
        // The frame's body, if its length was read, is skipped: the frame is
        // answered as a whole.
        if let Some(length) = length {
            std::io::copy(
                &mut Read::take(&mut *input, length as u64),
                &mut std::io::sink(),
            )?;
        }
        let why = format!("a header line longer than {MAX_HEADER_LINE_BYTES} bytes");
        return Ok(Some(malformed(Value::Null, ErrorCode::ParseError, why)));
    }
    let Some(length) = length else {
        let why = header_error.unwrap_or_else(|| "no Content-Length header".into());
        return Ok(Some(malformed(Value::Null, ErrorCode::ParseError, why)));
    };
    if length > MAX_MESSAGE_BYTES {
        std::io::copy(
            &mut Read::take(&mut *input, length as u64),
            &mut std::io::sink(),
        )?;
        return Ok(Some(malformed(
            Value::Null,
            ErrorCode::InvalidRequest,
            format!("a message of {length} bytes is larger than tether reads"),
        )));
    }
    let mut body = Vec::new();
    Read::take(&mut *input, length as u64).read_to_end(&mut body)?;
    if body.len() < length {
        return Ok(None);
    }
    Ok(Some(parse(&body)))
}

/// One frame's body as a message, or the error it gets. A first reading builds
/// nothing ([`Outline`]): a body that is no JSON object, an `id` that is neither a
/// number nor a string, and a body whose tree would take more than
/// [`TREE_BYTES_PER_BYTE`] times its size are answered unbuilt. A message is then
/// built from its `method` and `params` alone, never through `lsp-server`'s
/// untagged `Message`, which copies the whole tree again; an answer to one of the
/// server's own requests from its `result` or `error`, under the same bound.
pub(crate) fn parse(body: &[u8]) -> Incoming {
    let outline: Outline = match serde_json::from_slice(body) {
        Ok(outline) => outline,
        Err(error) => {
            return malformed(
                Value::Null,
                ErrorCode::ParseError,
                format!("not JSON: {error}"),
            );
        }
    };
    let invalid = |id: Value, why: &str| {
        malformed(
            id,
            ErrorCode::InvalidRequest,
            format!("not a JSON-RPC message: {why}"),
        )
    };
    if !outline.object {
        return invalid(Value::Null, "not a JSON object");
    }
    let (values, tree_bytes) = (outline.values, outline.tree_bytes());
    let id = match outline.id {
        Id::Absent => None,
        Id::Valid(id) => Some(id),
        Id::Number(number) => {
            return invalid(
                number.into(),
                "tether reads ids that are strings or 32-bit integers",
            );
        }
        Id::Invalid => return invalid(Value::Null, "the id is neither a number nor a string"),
    };
    let echo = id.as_ref().map_or(Value::Null, id_value);
    let budget = TREE_BYTES_PER_BYTE
        .saturating_mul(body.len())
        .saturating_add(TREE_BYTES_FLOOR);
    let over_budget = tree_bytes > budget;
    // An answer to the server's own request is not answered, even over the bound.
    let answer = outline.reply && matches!(outline.method, Method::Absent) && id.is_some();
    if over_budget && !answer {
        let why = format!(
            "{values} values in {} bytes are more than tether builds",
            body.len()
        );
        return malformed(echo, ErrorCode::InvalidRequest, why);
    }
    let method = match outline.method {
        Method::Name(method) => method,
        Method::NotText => return invalid(echo, "the method is not a string"),
        Method::Absent => {
            return match id {
                Some(id) if outline.reply => {
                    // An answer to one of the server's own requests: its result
                    // (a client's settings), or its error. An answer is never
                    // answered: one over the bound is left unbuilt, and one that
                    // does not parse, read as empty.
                    let reply = (!over_budget)
                        .then(|| serde_json::from_slice::<Reply>(body).ok())
                        .flatten();
                    let response_result = match reply {
                        Some(Reply {
                            error: Some(error), ..
                        }) => Err(error),
                        Some(Reply { result, .. }) => Ok(result),
                        None => Ok(Value::Null),
                    };
                    Incoming::Message(Message::Response(Response {
                        id,
                        response_result,
                    }))
                }
                _ => invalid(echo, "neither a method nor a result"),
            };
        }
    };
    let params = match serde_json::from_slice::<Params>(body) {
        Ok(Params { params }) => params,
        Err(error) => return invalid(echo, &error.to_string()),
    };
    Incoming::Message(match id {
        Some(id) => Message::Request(Request { id, method, params }),
        None => Message::Notification(Notification { method, params }),
    })
}

/// How many times its size a message's tree may take, beyond [`TREE_BYTES_FLOOR`].
pub(crate) const TREE_BYTES_PER_BYTE: usize = 4;

/// The tree any message may take, however small it is.
const TREE_BYTES_FLOOR: usize = 8 * 1024 * 1024;

/// The member of a message that is built; every other is skipped unbuilt.
#[derive(serde::Deserialize)]
struct Params {
    #[serde(default)]
    params: Value,
}

/// The members of an answer to one of the server's requests that are built.
#[derive(serde::Deserialize)]
struct Reply {
    #[serde(default)]
    result: Value,
    error: Option<lsp_server::ResponseError>,
}

/// A message as the writer takes it.
pub(crate) fn value_of(message: &Message) -> serde_json::Value {
    let mut body = serde_json::to_value(message).unwrap_or_default();
    if let Some(object) = body.as_object_mut() {
        object.insert("jsonrpc".into(), "2.0".into());
    }
    body
}

/// Writes one message, framed.
pub(crate) fn write(output: &mut impl Write, body: &serde_json::Value) -> std::io::Result<()> {
    let text = serde_json::to_string(body)?;
    write!(output, "Content-Length: {}\r\n\r\n{text}", text.len())?;
    output.flush()
}

/// The error answer to a malformed message, under `id` as it came: JSON-RPC's null
/// where it cannot be read, which lsp-server's `RequestId` cannot hold.
fn malformed(id: Value, code: ErrorCode, message: String) -> Incoming {
    let response = Response::new_err(RequestId::from(0), code as i32, message);
    let mut value = value_of(&Message::Response(response));
    if let Some(object) = value.as_object_mut() {
        object.insert("id".into(), id);
    }
    Incoming::Malformed(value)
}

fn id_value(id: &RequestId) -> Value {
    serde_json::to_value(id).unwrap_or_default()
}

fn shorten(text: &str) -> String {
    text.chars().take(80).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frames(text: &str) -> Vec<Incoming> {
        let mut input = std::io::Cursor::new(text.as_bytes().to_vec());
        let mut found = Vec::new();
        while let Some(incoming) = read(&mut input).unwrap() {
            found.push(incoming);
        }
        found
    }

    #[test]
    fn a_malformed_frame_is_answered_and_the_next_is_read() {
        let frame = |body: &str| format!("Content-Length: {}\r\n\r\n{body}", body.len());
        let text = [
            frame("{bad}"),
            frame(r#"{"id":3,"method":7}"#),
            frame(r#"{"jsonrpc":"2.0","method":"initialized","params":{}}"#),
        ]
        .concat();
        let found = frames(&text);
        assert_eq!(found.len(), 3);
        assert!(
            matches!(&found[0], Incoming::Malformed(r) if r["error"]["code"] == -32700 && r["id"].is_null())
        );
        assert!(matches!(&found[1], Incoming::Malformed(r) if r["id"] == 3));
        assert!(matches!(
            &found[2],
            Incoming::Message(Message::Notification(_))
        ));
    }

    #[test]
    fn a_frame_without_length_is_an_error() {
        let found = frames("Foo: bar\r\n\r\n");
        assert!(matches!(&found[0], Incoming::Malformed(_)));
    }

    /// A message whose tree would pass the budget is answered under its id,
    /// unbuilt; one within it is built.
    #[test]
    fn a_message_of_too_many_values_is_refused_unbuilt() {
        let message = |zeros: usize| {
            let zeros = vec!["0"; zeros].join(",");
            format!(r#"{{"jsonrpc":"2.0","id":"x","method":"m","params":[{zeros}]}}"#)
        };
        let refused = parse(message(200_000).as_bytes());
        assert!(
            matches!(&refused, Incoming::Malformed(r) if r["id"] == "x" && r["error"]["code"] == -32600),
            "the larger message is built"
        );
        let built = parse(message(100_000).as_bytes());
        assert!(
            matches!(&built, Incoming::Message(Message::Request(r)) if r.params.as_array().is_some_and(|a| a.len() == 100_000)),
            "the smaller message is refused"
        );
    }

    /// An answer to one of the server's requests is read for its result or its
    /// error; one over the budget is left unbuilt and read as empty, never
    /// answered (an answer to an answer would confuse the client).
    #[test]
    fn an_answer_is_read_for_its_result_and_never_answered() {
        let answer = |zeros: usize| {
            let zeros = vec!["0"; zeros].join(",");
            format!(r#"{{"jsonrpc":"2.0","id":"tether-configuration-1","result":[{zeros}]}}"#)
        };
        let result_of = |incoming: Incoming| match incoming {
            Incoming::Message(Message::Response(response)) => response.response_result,
            other => panic!("not read as an answer: {other:?}"),
        };
        let built = result_of(parse(answer(100_000).as_bytes())).unwrap();
        assert_eq!(built.as_array().map(Vec::len), Some(100_000));
        assert_eq!(
            result_of(parse(answer(200_000).as_bytes())).unwrap(),
            Value::Null
        );
        let failed = r#"{"jsonrpc":"2.0","id":"tether-configuration-2","error":{"code":-32601,"message":"no"}}"#;
        assert_eq!(
            result_of(parse(failed.as_bytes())).unwrap_err().code,
            -32601
        );
    }
}
