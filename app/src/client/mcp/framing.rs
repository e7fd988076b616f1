//! The lines between the MCP client and the SDK: every line a client sends gets an answer,
//! even one that is not JSON.
//!
//! `rmcp` drops a line it cannot parse without a word, so a client that sent one waits
//! forever for its reply. JSON-RPC 2.0 says such a line gets a parse error (`-32700`, id
//! `null`) and a JSON value that is not a request object an invalid-request error
//! (`-32600`). This module stands between stdio and the SDK: it answers those lines itself
//! and hands every other line on untouched; replies from both reach the client whole, one
//! line each. It knows nothing of the tools.

use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader, DuplexStream};
use tokio::sync::mpsc;

/// Room in the in-process pipes to the SDK.
const PIPE_BYTES: usize = 1 << 16;

/// The answer to a line that is not a JSON-RPC request, if it is not one.
fn refusal(line: &[u8]) -> Option<Value> {
    let error = |code: i64, message: &str| json!({"jsonrpc": "2.0", "id": null, "error": {"code": code, "message": message}});
    match serde_json::from_slice::<Value>(line) {
        Err(_) => Some(error(-32700, "Parse error: the line is not JSON")),
        // A batch is an array; anything else that is not an object is no request.
        Ok(Value::Object(_) | Value::Array(_)) => None,
        Ok(_) => Some(error(-32600, "Invalid Request: not a JSON-RPC object")),
    }
}

/// Puts the checks between `input`/`output` (stdio) and the SDK; returns the SDK's side of
/// the pipes. Runs until `input` ends and the SDK stops writing.
pub(super) fn frame(
    input: impl AsyncRead + Send + Unpin + 'static,
    mut output: impl AsyncWrite + Send + Unpin + 'static,
) -> (DuplexStream, DuplexStream) {
    let (sdk_input, mut to_sdk) = tokio::io::duplex(PIPE_BYTES);
    let (sdk_output, from_sdk) = tokio::io::duplex(PIPE_BYTES);
    let (lines, mut to_write) = mpsc::unbounded_channel::<Vec<u8>>();
    let refusals = lines.clone();
    tokio::spawn(async move {
        let mut input = BufReader::new(input);
        let mut line = Vec::new();
        loop {
            line.clear();
            match input.read_until(b'\n', &mut line).await {
                Ok(0) | Err(_) => break,
                Ok(_) => {}
            }
            if line.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            match refusal(&line) {
                Some(answer) => {
                    if refusals.send(answer.to_string().into_bytes()).is_err() {
                        break;
                    }
                }
                None => {
                    if !line.ends_with(b"\n") {
                        line.push(b'\n');
                    }
                    if to_sdk.write_all(&line).await.is_err() {
                        break;
                    }
                }
            }
        }
        // Dropping the pipe tells the SDK the client has gone.
    });
    tokio::spawn(async move {
        let mut from_sdk = BufReader::new(from_sdk);
        let mut line = Vec::new();
        loop {
            line.clear();
            match from_sdk.read_until(b'\n', &mut line).await {
                Ok(0) | Err(_) => break,
                Ok(_) => {}
            }
            let whole = line.strip_suffix(b"\n").unwrap_or(&line).to_vec();
            if lines.send(whole).is_err() {
                break;
            }
        }
    });
    tokio::spawn(async move {
        while let Some(mut line) = to_write.recv().await {
            line.push(b'\n');
            if output.write_all(&line).await.is_err() || output.flush().await.is_err() {
                break;
            }
        }
    });
    (sdk_input, sdk_output)
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::AsyncReadExt;

    #[tokio::test]
    async fn a_line_that_is_not_json_is_answered_and_the_rest_passes_untouched() {
        let (client, stdin) = tokio::io::duplex(4096);
        let (stdout, mut client_reads) = tokio::io::duplex(4096);
        let (mut sdk_reads, mut sdk_writes) = frame(stdin, stdout);
        let mut client = client;
        client
            .write_all(
                b"this is not json\n42\n{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n",
            )
            .await
            .unwrap();
        drop(client);
        let mut passed = String::new();
        sdk_reads.read_to_string(&mut passed).await.unwrap();
        assert_eq!(
            passed,
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n"
        );
        sdk_writes
            .write_all(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n")
            .await
            .unwrap();
        drop(sdk_writes);
        let mut replies = String::new();
        client_reads.read_to_string(&mut replies).await.unwrap();
        let replies: Vec<Value> = replies
            .lines()
            .map(|line| serde_json::from_str(line).unwrap())
            .collect();
        assert_eq!(replies.len(), 3, "{replies:?}");
        let codes: Vec<_> = replies
            .iter()
            .filter_map(|reply| reply["error"]["code"].as_i64())
            .collect();
        assert_eq!(codes, vec![-32700, -32600]);
        assert!(replies
            .iter()
            .any(|reply| reply["id"] == 1 && reply["result"].is_object()));
    }
}
