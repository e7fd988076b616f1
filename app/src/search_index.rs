//! The full-text index of every session on the machine, for `chatsurface search`.
//!
//! It lives in the data directory (`search-index/`), a tantivy index (the maintained Rust
//! full-text engine: tokenised, ranked, on disk, opened through a memory map) with one
//! document per node of every session that [`catalog`](crate::agents::catalog) finds: the
//! node's words as the transcript shows them (`chatsurface_compositor::node_words`), its
//! session, thread and file. A manifest beside it records each file's length, modification
//! time and inode as indexed. Every search first brings the index up to date: a file that
//! changed (grew, was replaced) is indexed again, a file gone is dropped, so results never
//! come from what a log no longer says. The index is a cache, never the truth: one that is
//! missing, of another version or that cannot be read is deleted and rebuilt from the logs,
//! with one `note:` line.

use crate::agents::{self, catalog, Format};
use crate::error::AppError;
use chatsurface_compositor::{node_words, one_line};
use chatsurface_model::{NodeRef, Snapshot};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use tantivy::collector::TopDocs;
use tantivy::query::QueryParser;
use tantivy::schema::{Field, Schema, Value, STORED, STRING, TEXT};
use tantivy::snippet::SnippetGenerator;
use tantivy::{doc, Index, IndexWriter, TantivyDocument, Term};

/// Bumped whenever the schema or what is indexed changes: an index of another version is
/// rebuilt.
const INDEX_VERSION: u32 = 1;

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
    agent: Field,
    session: Field,
    thread: Field,
    node: Field,
    text: Field,
    modified: Field,
}

fn schema() -> (Schema, Fields) {
    let mut builder = Schema::builder();
    let fields = Fields {
        path: builder.add_text_field("path", STRING | STORED),
        agent: builder.add_text_field("agent", STRING | STORED),
        session: builder.add_text_field("session", STORED),
        thread: builder.add_text_field("thread", STORED),
        node: builder.add_text_field("node", STORED),
        text: builder.add_text_field("text", TEXT | STORED),
        modified: builder.add_i64_field("modified", STORED),
    };
    (builder.build(), fields)
}

/// The index, open and up to date with the logs.
pub struct SearchIndex {
    index: Index,
    fields: Fields,
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
        let this = SearchIndex { index, fields };
        if this.bring_up_to_date(&mut manifest, folders, dir)? {
            let bytes = serde_json::to_vec(&manifest).map_err(|error| index_error(dir, error))?;
            crate::fsutil::write_atomically(&manifest_path, &bytes, 0o600)
                .map_err(|error| index_error(dir, error))?;
        }
        Ok(this)
    }

    /// Indexes again every file that changed since the manifest's stamps and drops the files
    /// gone; whether anything changed.
    fn bring_up_to_date(
        &self,
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
        let mut writer: IndexWriter = self
            .index
            .writer(WRITER_MEMORY)
            .map_err(|error| index_error(dir, error))?;
        for path in &gone {
            writer.delete_term(Term::from_field_text(
                self.fields.path,
                &path.to_string_lossy(),
            ));
            manifest.files.remove(path);
        }
        for (path, format, stamp) in stale {
            writer.delete_term(Term::from_field_text(
                self.fields.path,
                &path.to_string_lossy(),
            ));
            manifest.files.remove(&path);
            let Some(stamp) = stamp else {
                continue;
            };
            match agents::load(&path, Some(format)) {
                Ok(loaded) => {
                    self.add_session(&mut writer, &path, format, &loaded.snapshot, stamp)
                        .map_err(|error| index_error(dir, error))?;
                    manifest.files.insert(path, stamp);
                }
                Err(error) => tracing::warn!("{error}; left out of the search index"),
            }
        }
        writer.commit().map_err(|error| index_error(dir, error))?;
        Ok(true)
    }

    fn add_session(
        &self,
        writer: &mut IndexWriter,
        path: &Path,
        format: Format,
        snapshot: &Snapshot,
        stamp: Stamp,
    ) -> tantivy::Result<()> {
        let fields = &self.fields;
        let file = path.to_string_lossy();
        let modified = (stamp.modified_ns / 1_000_000_000) as i64;
        for entry in &snapshot.timeline {
            let words = node_words(snapshot, entry.node).join("\n");
            if words.trim().is_empty() {
                continue;
            }
            writer.add_document(doc!(
                fields.path => file.as_ref(),
                fields.agent => format.name(),
                fields.session => snapshot.title(),
                fields.thread => snapshot.threads[entry.thread].spec.title.as_str(),
                fields.node => node_name(snapshot, entry.node),
                fields.text => words,
                fields.modified => modified,
            ))?;
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
            let modified = document
                .get_first(self.fields.modified)
                .and_then(|value| value.as_i64())
                .unwrap_or(0);
            let snippet = snippets.snippet_from_doc(&document);
            let result = Found {
                agent: text_of(self.fields.agent),
                session: text_of(self.fields.session),
                thread: text_of(self.fields.thread),
                node: text_of(self.fields.node),
                path: PathBuf::from(text_of(self.fields.path)),
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
