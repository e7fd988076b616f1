//! The full-text index of every session on the machine, for `chatsurface search`.
//!
//! It lives in the data directory (`search-index/`), a tantivy index (the maintained Rust
//! full-text engine: tokenised, ranked, on disk, opened through a memory map) with one
//! document per node of every session that [`catalog`](crate::agents::catalog) finds: the
//! node's words as the transcript shows them (`chatsurface_compositor::node_words`), its
//! session, thread and file, under a key (the file and the node's name) and a digest of what
//! it says. A manifest beside it records each file's length, modification time and inode as
//! indexed. Every search first brings the index up to date: a file that changed (grew, was
//! replaced) is read again and only its documents whose digest changed are written again (a
//! log that grew by one message costs one document, not the session), the nodes it no longer
//! has are deleted, and a file gone is dropped, so results never come from what a log no
//! longer says. The index is a cache, never the truth: one that is missing, of another version
//! or that cannot be read is deleted and rebuilt from the logs, with one `note:` line.

use crate::agents::{self, catalog, Format};
use crate::error::AppError;
use chatsurface_compositor::{node_words, one_line};
use chatsurface_model::{NodeRef, Snapshot};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::collections::{BTreeMap, HashMap};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use tantivy::collector::{DocSetCollector, TopDocs};
use tantivy::query::{QueryParser, TermQuery};
use tantivy::schema::{Field, IndexRecordOption, Schema, Value, FAST, STORED, STRING, TEXT};
use tantivy::snippet::SnippetGenerator;
use tantivy::{doc, Index, IndexWriter, TantivyDocument, Term};

/// Bumped whenever the schema or what is indexed changes: an index of another version is
/// rebuilt.
const INDEX_VERSION: u32 = 2;

/// The manifest's file name, inside the index's folder.
const MANIFEST: &str = "chatsurface-manifest.json";

/// Memory the writer may buffer before it flushes a segment.
const WRITER_MEMORY: usize = 50_000_000;

/// The longest snippet shown per result, in characters.
const SNIPPET_CHARS: usize = 160;

/// What the manifest remembers of a file as indexed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
struct Stamp {
    len: u64,
    modified_ns: i128,
    inode: u64,
}

impl Stamp {
    fn of(path: &Path) -> Option<Stamp> {
        let metadata = std::fs::metadata(path).ok()?;
        Some(Stamp {
            len: metadata.len(),
            modified_ns: i128::from(metadata.mtime()) * 1_000_000_000
                + i128::from(metadata.mtime_nsec()),
            inode: metadata.ino(),
        })
    }
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct Manifest {
    version: u32,
    files: BTreeMap<PathBuf, Stamp>,
}

/// One result of a search.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Found {
    /// `chatsurface` or the agent's name.
    pub agent: String,
    /// The session's title.
    pub session: String,
    /// The thread's title.
    pub thread: String,
    /// What the node is and its id: `message m-12`, `batch b-1`, `decision d-3`.
    pub node: String,
    /// The file.
    pub path: PathBuf,
    /// Words around the match, on one line.
    pub snippet: String,
    /// The file's last change, in seconds since 1970 (for `--since`).
    pub modified: i64,
}

struct Fields {
    path: Field,
    /// The file's path, the node's name and count (see `node_documents`): one document's
    /// identity in the whole index.
    key: Field,
    /// The first 8 bytes of the SHA-256 of what the document holds, to tell a changed node.
    digest: Field,
    agent: Field,
    session: Field,
    thread: Field,
    node: Field,
    text: Field,
}

fn schema() -> (Schema, Fields) {
    let mut builder = Schema::builder();
    let fields = Fields {
        path: builder.add_text_field("path", STRING | STORED),
        key: builder.add_text_field("key", STRING | FAST),
        digest: builder.add_u64_field("digest", FAST),
        agent: builder.add_text_field("agent", STRING | STORED),
        session: builder.add_text_field("session", STORED),
        thread: builder.add_text_field("thread", STORED),
        node: builder.add_text_field("node", STORED),
        text: builder.add_text_field("text", TEXT | STORED),
    };
    (builder.build(), fields)
}

/// What bringing the index up to date wrote.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct IndexUpdate {
    /// Files read again (new, grown or replaced).
    pub files_read: usize,
    /// Documents written (new nodes, and nodes whose words changed).
    pub written: usize,
    /// Documents deleted (nodes gone or changed, and the files gone).
    pub deleted: usize,
}

/// The index, open and up to date with the logs.
pub struct SearchIndex {
    index: Index,
    fields: Fields,
    manifest: Manifest,
    update: IndexUpdate,
}

/// One node of a session as a document, before it is written.
struct NodeDocument {
    key: String,
    digest: u64,
    node: String,
    thread: String,
    words: String,
}

fn index_error(dir: &Path, error: impl std::fmt::Display) -> AppError {
    AppError::CannotCreate(format!("{}: the search index: {error}", dir.display()))
}

/// `message m-12`: what a node is, and its id as the log names it.
fn node_name(snapshot: &Snapshot, node: NodeRef) -> String {
    match node {
        NodeRef::Message(index) => format!("message {}", snapshot.messages[index].spec.id.as_str()),
        NodeRef::Batch(index) => format!("batch {}", snapshot.batches[index].spec.id.as_str()),
        NodeRef::Confirmation(index) => {
            format!(
                "confirmation {}",
                snapshot.confirmations[index].spec.id.as_str()
            )
        }
        NodeRef::Decision(index) => {
            format!("decision {}", snapshot.decisions[index].spec.id.as_str())
        }
        NodeRef::Thread(index) => format!("thread {}", snapshot.threads[index].spec.id.as_str()),
    }
}

impl SearchIndex {
    /// Opens the index in `dir` (creating it, or rebuilding one that cannot be trusted) and
    /// brings it up to date with every session in `folders`.
    pub fn open_current(dir: &Path, folders: &catalog::Folders) -> Result<SearchIndex, AppError> {
        let (schema, fields) = schema();
        let manifest_path = dir.join(MANIFEST);
        let manifest: Option<Manifest> = std::fs::read(&manifest_path)
            .ok()
            .and_then(|bytes| serde_json::from_slice(&bytes).ok())
            .filter(|manifest: &Manifest| manifest.version == INDEX_VERSION);
        let opened = manifest.as_ref().and_then(|_| {
            Index::open_in_dir(dir)
                .ok()
                .filter(|index| index.schema() == schema)
        });
        let (index, mut manifest) = match (opened, manifest) {
            (Some(index), Some(manifest)) => (index, manifest),
            (_, had) => {
                if dir.exists() {
                    let why = if had.is_some() {
                        "cannot be read"
                    } else {
                        "has no manifest of this version"
                    };
                    eprintln!(
                        "note: {}: the search index {why}; rebuilding it from the logs",
                        dir.display()
                    );
                    std::fs::remove_dir_all(dir).map_err(|error| index_error(dir, error))?;
                }
                crate::fsutil::create_private_dir(dir).map_err(|error| index_error(dir, error))?;
                let index =
                    Index::create_in_dir(dir, schema).map_err(|error| index_error(dir, error))?;
                (
                    index,
                    Manifest {
                        version: INDEX_VERSION,
                        files: BTreeMap::new(),
                    },
                )
            }
        };
        let mut this = SearchIndex {
            index,
            fields,
            manifest: Manifest::default(),
            update: IndexUpdate::default(),
        };
        if this.bring_up_to_date(&mut manifest, folders, dir)? {
            let bytes = serde_json::to_vec(&manifest).map_err(|error| index_error(dir, error))?;
            crate::fsutil::write_atomically(&manifest_path, &bytes, 0o600)
                .map_err(|error| index_error(dir, error))?;
        }
        this.manifest = manifest;
        Ok(this)
    }

    /// What opening the index had to write to bring it up to date.
    pub fn last_update(&self) -> IndexUpdate {
        self.update
    }

    /// Reads again every file that changed since the manifest's stamps, writing the documents
    /// that changed, and drops the files gone; whether anything changed.
    fn bring_up_to_date(
        &mut self,
        manifest: &mut Manifest,
        folders: &catalog::Folders,
        dir: &Path,
    ) -> Result<bool, AppError> {
        let files = catalog::session_files(folders);
        let mut stale: Vec<(PathBuf, Format, Option<Stamp>)> = Vec::new();
        for (path, format) in &files {
            let stamp = Stamp::of(path);
            if stamp.is_none() || manifest.files.get(path) != stamp.as_ref() {
                stale.push((path.clone(), *format, stamp));
            }
        }
        let gone: Vec<PathBuf> = manifest
            .files
            .keys()
            .filter(|path| !files.iter().any(|(file, _)| file == *path))
            .cloned()
            .collect();
        if stale.is_empty() && gone.is_empty() {
            return Ok(false);
        }
        let fail = |error| index_error(dir, error);
        let searcher = self.index.reader().map_err(fail)?.searcher();
        let mut writer: IndexWriter = self.index.writer(WRITER_MEMORY).map_err(fail)?;
        for path in &gone {
            self.update.deleted += self.documents_of(&searcher, path).map_err(fail)?.len();
            writer.delete_term(Term::from_field_text(
                self.fields.path,
                &path.to_string_lossy(),
            ));
            manifest.files.remove(path);
        }
        for (path, format, stamp) in stale {
            let indexed = self.documents_of(&searcher, &path).map_err(fail)?;
            manifest.files.remove(&path);
            let loaded = stamp.map(|_| agents::load(&path, Some(format)));
            let (Some(stamp), Some(Ok(loaded))) = (stamp, loaded.as_ref()) else {
                if let Some(Err(error)) = loaded {
                    tracing::warn!("{error}; left out of the search index");
                }
                self.update.deleted += indexed.len();
                writer.delete_term(Term::from_field_text(
                    self.fields.path,
                    &path.to_string_lossy(),
                ));
                continue;
            };
            self.update.files_read += 1;
            self.write_changes(&mut writer, (&path, format), &loaded.snapshot, indexed)
                .map_err(fail)?;
            manifest.files.insert(path, stamp);
        }
        writer.commit().map_err(fail)?;
        Ok(true)
    }

    /// The documents the index holds for `path`: each one's key and digest.
    fn documents_of(
        &self,
        searcher: &tantivy::Searcher,
        path: &Path,
    ) -> tantivy::Result<HashMap<String, u64>> {
        let term = Term::from_field_text(self.fields.path, &path.to_string_lossy());
        let query = TermQuery::new(term, IndexRecordOption::Basic);
        let mut documents = HashMap::new();
        let mut key = String::new();
        for address in searcher.search(&query, &DocSetCollector)? {
            let fast = searcher.segment_reader(address.segment_ord).fast_fields();
            let keys = fast
                .str("key")?
                .ok_or_else(|| tantivy::TantivyError::SchemaError("no key column".into()))?;
            let digest = fast.u64("digest")?.first(address.doc_id).unwrap_or(0);
            let Some(ordinal) = keys.term_ords(address.doc_id).next() else {
                continue;
            };
            key.clear();
            keys.ord_to_str(ordinal, &mut key)?;
            documents.insert(key.clone(), digest);
        }
        Ok(documents)
    }

    /// Writes the documents of `snapshot` that `indexed` (the file's documents in the index,
    /// by key and digest) lacks or holds with other words, and deletes the ones it no longer
    /// has.
    fn write_changes(
        &mut self,
        writer: &mut IndexWriter,
        (path, format): (&Path, Format),
        snapshot: &Snapshot,
        mut indexed: HashMap<String, u64>,
    ) -> tantivy::Result<()> {
        let fields = &self.fields;
        let file = path.to_string_lossy();
        let session = snapshot.title();
        for document in node_documents(snapshot, &file, (format, session)) {
            match indexed.remove(&document.key) {
                Some(digest) if digest == document.digest => continue,
                Some(_) => self.update.deleted += 1,
                None => {}
            }
            // A delete takes only the documents added before it, so this replaces the node.
            writer.delete_term(Term::from_field_text(fields.key, &document.key));
            writer.add_document(doc!(
                fields.path => file.as_ref(),
                fields.key => document.key,
                fields.digest => document.digest,
                fields.agent => format.name(),
                fields.session => session,
                fields.thread => document.thread,
                fields.node => document.node,
                fields.text => document.words,
            ))?;
            self.update.written += 1;
        }
        for key in indexed.into_keys() {
            writer.delete_term(Term::from_field_text(fields.key, &key));
            self.update.deleted += 1;
        }
        Ok(())
    }

    /// The best `limit` matches of `query` (words, any order; `"quoted words"` a phrase),
    /// best first, of the sessions `keep` lets through.
    pub fn search(
        &self,
        query: &str,
        limit: usize,
        keep: impl Fn(&Found) -> bool,
    ) -> Result<Vec<Found>, AppError> {
        let fail =
            |error: tantivy::TantivyError| AppError::Internal(format!("the search index: {error}"));
        let reader = self.index.reader().map_err(fail)?;
        let searcher = reader.searcher();
        let mut parser = QueryParser::for_index(&self.index, vec![self.fields.text]);
        parser.set_conjunction_by_default();
        // Lenient: what a human types is never a syntax error.
        let (parsed, _) = parser.parse_query_lenient(query);
        let mut snippets =
            SnippetGenerator::create(&searcher, &*parsed, self.fields.text).map_err(fail)?;
        snippets.set_max_num_chars(SNIPPET_CHARS);
        // Filters apply after ranking, so ask for more than are shown.
        let wanted = limit.saturating_mul(8).max(64);
        let top = searcher
            .search(&*parsed, &TopDocs::with_limit(wanted).order_by_score())
            .map_err(fail)?;
        let mut found = Vec::new();
        for (_, address) in top {
            let document: TantivyDocument = searcher.doc(address).map_err(fail)?;
            let text_of = |field: Field| {
                document
                    .get_first(field)
                    .and_then(|value| value.as_str().map(str::to_owned))
                    .unwrap_or_default()
            };
            let path = PathBuf::from(text_of(self.fields.path));
            let modified = self
                .manifest
                .files
                .get(&path)
                .map_or(0, |stamp| (stamp.modified_ns / 1_000_000_000) as i64);
            let snippet = snippets.snippet_from_doc(&document);
            let result = Found {
                agent: text_of(self.fields.agent),
                session: text_of(self.fields.session),
                thread: text_of(self.fields.thread),
                node: text_of(self.fields.node),
                path,
                snippet: one_line(snippet.fragment(), SNIPPET_CHARS),
                modified,
            };
            if keep(&result) {
                found.push(result);
                if found.len() == limit {
                    break;
                }
            }
        }
        Ok(found)
    }
}

/// The documents of a session's nodes, in timeline order: each node with words, named and
/// keyed by the file, its name and which of the nodes of that name it is (two nodes can
/// share an id). The path holds no NUL and the count none either, so no two keys are alike.
fn node_documents<'a>(
    snapshot: &'a Snapshot,
    file: &'a str,
    (format, session): (Format, &'a str),
) -> impl Iterator<Item = NodeDocument> + 'a {
    let mut seen: HashMap<String, usize> = HashMap::new();
    snapshot.timeline.iter().filter_map(move |entry| {
        let words = node_words(snapshot, entry.node).join("\n");
        if words.trim().is_empty() {
            return None;
        }
        let node = node_name(snapshot, entry.node);
        let count = seen.entry(node.clone()).or_default();
        *count += 1;
        let thread = snapshot.threads[entry.thread].spec.title.clone();
        let mut hash = Sha256::new();
        for part in [format.name(), session, &thread, &node, &words] {
            hash.update((part.len() as u64).to_le_bytes());
            hash.update(part.as_bytes());
        }
        let digest = u64::from_le_bytes(hash.finalize()[..8].try_into().expect("8 bytes"));
        Some(NodeDocument {
            key: format!("{file}\0{node}\0{count}"),
            digest,
            node,
            thread,
            words,
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A native store with one session log, and the index beside it.
    struct Store {
        dir: tempfile::TempDir,
        seq: u64,
    }

    impl Store {
        fn log(&self) -> PathBuf {
            self.dir.path().join("sessions/s.jsonl")
        }

        fn line(&mut self, body: serde_json::Value) -> String {
            self.seq += 1;
            let mut event = json!({"v": 1, "seq": self.seq, "at": "2026-12-01T00:00:00Z"});
            event
                .as_object_mut()
                .unwrap()
                .extend(body.as_object().unwrap().clone());
            format!("{event}\n")
        }

        /// A session of `messages` messages "llama N" in one thread.
        fn new(messages: usize) -> Store {
            let dir = tempfile::tempdir().unwrap();
            std::fs::create_dir(dir.path().join("sessions")).unwrap();
            let mut store = Store { dir, seq: 0 };
            let log = store.session_of(messages);
            std::fs::write(store.log(), log).unwrap();
            store
        }

        fn session_of(&mut self, messages: usize) -> String {
            self.seq = 0;
            let mut log = self
                .line(json!({"type": "session_started", "session": {"id": "s", "title": "Herd"}}));
            log += &self.line(json!({"type": "thread_opened", "thread": {"id": "main", "parent": null, "title": "Main", "kind": "topic"}}));
            for index in 0..messages {
                log += &self.message(&format!("m-{index}"), &format!("llama {index}"));
            }
            log
        }

        fn message(&mut self, id: &str, text: &str) -> String {
            self.line(json!({"type": "message_appended", "message": {"id": id, "thread_id": "main", "role": "agent", "text": text}}))
        }

        fn append(&self, lines: &str) {
            let mut file = std::fs::OpenOptions::new()
                .append(true)
                .open(self.log())
                .unwrap();
            std::io::Write::write_all(&mut file, lines.as_bytes()).unwrap();
        }

        fn open(&self) -> SearchIndex {
            let folders = catalog::Folders {
                native: Some(self.dir.path().join("sessions")),
                claude_code: None,
                codex: None,
                gemini: None,
            };
            SearchIndex::open_current(&self.dir.path().join("search-index"), &folders).unwrap()
        }
    }

    fn nodes(index: &SearchIndex, query: &str) -> Vec<String> {
        let mut nodes: Vec<String> = index
            .search(query, 100, |_| true)
            .unwrap()
            .into_iter()
            .map(|found| found.node)
            .collect();
        nodes.sort();
        nodes
    }

    fn update(files_read: usize, written: usize, deleted: usize) -> IndexUpdate {
        IndexUpdate {
            files_read,
            written,
            deleted,
        }
    }

    #[test]
    fn a_log_that_grows_writes_only_the_nodes_it_added_or_changed() {
        let mut store = Store::new(20);
        let first = store.open();
        // The thread's title and the 20 messages.
        assert_eq!(first.last_update(), update(1, 21, 0));
        assert_eq!(nodes(&first, "llama").len(), 20);
        drop(first);

        let line = store.message("m-new", "the wombat check");
        store.append(&line);
        let grown = store.open();
        assert_eq!(grown.last_update(), update(1, 1, 0), "one message added");
        assert_eq!(nodes(&grown, "wombat"), ["message m-new"]);
        assert_eq!(
            nodes(&grown, "llama").len(),
            20,
            "the others not written twice"
        );
        drop(grown);

        let line = store.line(json!({"type": "message_chunk_appended", "message_id": "m-new", "text": " failed on the zebra"}));
        store.append(&line);
        let changed = store.open();
        assert_eq!(
            changed.last_update(),
            update(1, 1, 1),
            "one message replaced"
        );
        assert_eq!(nodes(&changed, "zebra"), ["message m-new"]);
        assert_eq!(
            nodes(&changed, "wombat"),
            ["message m-new"],
            "once, as it is now"
        );
        drop(changed);

        assert_eq!(
            store.open().last_update(),
            update(0, 0, 0),
            "nothing changed"
        );
    }

    #[test]
    fn a_log_replaced_by_a_shorter_one_loses_the_nodes_it_no_longer_has() {
        let mut store = Store::new(20);
        drop(store.open());
        let shorter = store.session_of(5);
        let replacement = store.dir.path().join("replacement");
        std::fs::write(&replacement, shorter).unwrap();
        std::fs::rename(&replacement, store.log()).unwrap();
        let index = store.open();
        assert_eq!(index.last_update(), update(1, 0, 15));
        assert_eq!(nodes(&index, "llama").len(), 5);
        assert!(nodes(&index, "19").is_empty());
    }

    #[test]
    fn a_log_gone_is_dropped_from_the_index() {
        let store = Store::new(3);
        drop(store.open());
        std::fs::remove_file(store.log()).unwrap();
        let index = store.open();
        assert_eq!(index.last_update(), update(0, 0, 4));
        assert!(nodes(&index, "llama").is_empty());
    }
}
