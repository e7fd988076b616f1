//! Gemini CLI's older sessions (`chats/session-*.json`, written up to 0.30): one JSON object,
//! pretty-printed and rewritten whole at every change, holding the metadata of today's first
//! line and the message list. It is read as the lines today's JSON Lines session would have
//! (the metadata, then one line per message), so `history.rs` replays both the same way.
//!
//! This module owns telling the older format apart and taking it apart; what a message means
//! is the reader's.

use serde_json::Value;

/// What the bytes of a session file are, as far as the older format goes.
pub(super) enum WholeFile {
    /// A whole-file session, as the lines of today's format.
    Lines(Vec<Value>),
    /// The start of a whole-file session, cut short: Gemini CLI is rewriting it.
    Unfinished,
    /// Not a whole-file session (a JSON Lines one).
    No,
}

/// Reads `bytes` as a whole-file session if they are one.
pub(super) fn read(bytes: &[u8]) -> WholeFile {
    let text = super::super::lines::without_bom(bytes);
    // Pretty-printed, the object's opening brace is a line of its own; a JSON Lines session's
    // first line is a whole object.
    if !starts_pretty_printed(text) {
        return WholeFile::No;
    }
    match serde_json::from_slice::<Value>(text) {
        Ok(Value::Object(mut session)) => match session.remove("messages") {
            Some(Value::Array(messages)) => {
                // What is left of the object is the metadata.
                let mut lines = vec![Value::Object(session)];
                lines.extend(messages);
                WholeFile::Lines(lines)
            }
            _ => WholeFile::No,
        },
        Err(error) if error.is_eof() => WholeFile::Unfinished,
        _ => WholeFile::No,
    }
}

/// Whether the first lines of a file look like a whole-file session's: `{` alone, then the
/// `sessionId` and `projectHash` keys Gemini CLI writes first. For detection from a file's
/// first lines, before it is read whole.
pub(crate) fn looks_like(head: &[u8]) -> bool {
    let text = super::super::lines::without_bom(head);
    starts_pretty_printed(text) && {
        let head = String::from_utf8_lossy(&text[..text.len().min(4096)]);
        head.contains("\"sessionId\":") && head.contains("\"projectHash\":")
    }
}

fn starts_pretty_printed(text: &[u8]) -> bool {
    let first = text
        .split(|&byte| byte == b'\n')
        .find(|line| !line.iter().all(u8::is_ascii_whitespace));
    first.is_some_and(|line| line.trim_ascii() == b"{")
}

#[cfg(test)]
mod tests {
    use super::*;

    const SESSION: &str = "{\n  \"sessionId\": \"s1\",\n  \"projectHash\": \"p\",\n  \"messages\": [\n    {\"id\": \"m1\", \"type\": \"user\", \"content\": [{\"text\": \"Hi\"}]}\n  ]\n}";

    #[test]
    fn a_whole_file_session_is_its_metadata_then_its_messages() {
        let WholeFile::Lines(lines) = read(SESSION.as_bytes()) else {
            panic!("not read as a whole-file session");
        };
        assert_eq!(lines.len(), 2);
        assert_eq!(lines[0]["sessionId"], "s1");
        assert!(lines[0].get("messages").is_none());
        assert_eq!(lines[1]["id"], "m1");
        assert!(looks_like(SESSION.as_bytes()));
    }

    #[test]
    fn a_session_cut_short_is_unfinished_and_json_lines_are_not_one() {
        let cut = &SESSION.as_bytes()[..SESSION.len() / 2];
        assert!(matches!(read(cut), WholeFile::Unfinished));
        assert!(looks_like(cut), "detected from its first lines");
        let lines =
            b"{\"sessionId\":\"s1\",\"projectHash\":\"p\"}\n{\"id\":\"m1\",\"type\":\"user\"}\n";
        assert!(matches!(read(lines), WholeFile::No));
        assert!(!looks_like(lines));
        assert!(matches!(read(b"{\n  \"other\": 1\n}"), WholeFile::No));
    }
}
