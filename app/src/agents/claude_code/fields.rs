//! The JSON shapes of a Claude Code record, as far as the reader looks, read from a line in
//! one pass: what the reader does not name (a tool's whole output in `toolUseResult`, the
//! harness's blobs, which are most of a transcript's bytes) is passed over, never decoded.
//!
//! Leniently: the format changes with every release. A value the reader takes is kept as
//! its raw JSON and read when used, so one of an unexpected type leaves out only itself; an
//! object or a list the reader walks into is read as such when it is one, and as nothing
//! otherwise, never failing its record.
//!
//! This module owns the shapes only; what a record means is `records`'.

use serde::de::value::MapAccessDeserializer;
use serde::de::{self, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::value::RawValue;
use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;

/// The fields of a record (one line) the reader looks at.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct RecordFields<'a> {
    #[serde(rename = "type", borrow)]
    pub(super) kind: Option<&'a RawValue>,
    #[serde(borrow)]
    pub(super) uuid: Option<&'a RawValue>,
    #[serde(borrow)]
    pub(super) parent_uuid: Option<&'a RawValue>,
    #[serde(borrow)]
    pub(super) logical_parent_uuid: Option<&'a RawValue>,
    #[serde(borrow)]
    pub(super) is_sidechain: Option<&'a RawValue>,
    #[serde(borrow)]
    pub(super) is_meta: Option<&'a RawValue>,
    #[serde(borrow)]
    pub(super) is_compact_summary: Option<&'a RawValue>,
    #[serde(borrow)]
    pub(super) session_id: Option<&'a RawValue>,
    #[serde(borrow)]
    pub(super) timestamp: Option<&'a RawValue>,
    #[serde(borrow)]
    pub(super) subtype: Option<&'a RawValue>,
    #[serde(borrow)]
    pub(super) leaf_uuid: Option<&'a RawValue>,
    #[serde(borrow)]
    pub(super) custom_title: Option<&'a RawValue>,
    #[serde(borrow)]
    pub(super) ai_title: Option<&'a RawValue>,
    #[serde(default, borrow)]
    pub(super) message: Object<MessageFields<'a>>,
    #[serde(default, borrow)]
    pub(super) tool_use_result: Object<ToolUseResultFields<'a>>,
}

/// The fields of a record's `message` the reader looks at.
#[derive(Deserialize)]
pub(super) struct MessageFields<'a> {
    #[serde(borrow)]
    pub(super) id: Option<&'a RawValue>,
    #[serde(default, borrow)]
    pub(super) content: Content<'a>,
}

/// The fields of one block of a message's content the reader looks at (a text, a tool call,
/// a tool result).
#[derive(Deserialize)]
pub(super) struct BlockFields<'a> {
    #[serde(rename = "type", borrow)]
    pub(super) kind: Option<&'a RawValue>,
    #[serde(borrow)]
    pub(super) text: Option<&'a RawValue>,
    #[serde(borrow)]
    pub(super) id: Option<&'a RawValue>,
    #[serde(borrow)]
    pub(super) name: Option<&'a RawValue>,
    #[serde(borrow)]
    pub(super) input: Option<&'a RawValue>,
    /// A tool result's output: kept raw, so that only the part shown is ever decoded.
    #[serde(borrow)]
    pub(super) content: Option<&'a RawValue>,
    #[serde(borrow)]
    pub(super) tool_use_id: Option<&'a RawValue>,
    #[serde(borrow)]
    pub(super) is_error: Option<&'a RawValue>,
}

/// The fields of `toolUseResult` the reader looks at.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct ToolUseResultFields<'a> {
    #[serde(borrow)]
    pub(super) answers: Option<&'a RawValue>,
    #[serde(borrow)]
    pub(super) agent_id: Option<&'a RawValue>,
}

/// The visits of a JSON number, boolean or null, each answered with `$nothing`.
macro_rules! scalars_are {
    ($nothing:expr) => {
        fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
            Ok($nothing)
        }
        fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
            Ok($nothing)
        }
        fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
            Ok($nothing)
        }
        fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
            Ok($nothing)
        }
        fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok($nothing)
        }
    };
}

/// A JSON object read as `T`, or `None` when the value is of another type.
pub(super) struct Object<T>(pub(super) Option<T>);

impl<T> Default for Object<T> {
    fn default() -> Self {
        Object(None)
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Object<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct ObjectVisitor<T>(PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for ObjectVisitor<T> {
            type Value = Object<T>;
            fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
                formatter.write_str("any JSON value")
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                T::deserialize(MapAccessDeserializer::new(map)).map(|value| Object(Some(value)))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(Object(None))
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
                Ok(Object(None))
            }
            scalars_are!(Object(None));
        }
        deserializer.deserialize_any(ObjectVisitor(PhantomData))
    }
}

/// A message's `content`: its text, or its blocks.
#[derive(Default)]
pub(super) enum Content<'a> {
    Text(Cow<'a, str>),
    Blocks(Vec<Object<BlockFields<'a>>>),
    /// Missing, or of another type.
    #[default]
    Other,
}

impl<'de: 'a, 'a> Deserialize<'de> for Content<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct ContentVisitor<'a>(PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for ContentVisitor<'a> {
            type Value = Content<'a>;
            fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
                formatter.write_str("any JSON value")
            }
            fn visit_borrowed_str<E: de::Error>(self, text: &'de str) -> Result<Self::Value, E> {
                Ok(Content::Text(Cow::Borrowed(text)))
            }
            fn visit_str<E: de::Error>(self, text: &str) -> Result<Self::Value, E> {
                Ok(Content::Text(Cow::Owned(text.to_owned())))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                let mut blocks = Vec::new();
                while let Some(block) = seq.next_element()? {
                    blocks.push(block);
                }
                Ok(Content::Blocks(blocks))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(Content::Other)
            }
            scalars_are!(Content::Other);
        }
        deserializer.deserialize_any(ContentVisitor(PhantomData))
    }
}

/// A raw value as `T`, or `None` when it is missing or of another type.
pub(super) fn field<'a, T: Deserialize<'a>>(raw: Option<&'a RawValue>) -> Option<T> {
    serde_json::from_str(raw?.get()).ok()
}

/// A raw value as text, when it is a string.
pub(super) fn text(raw: Option<&RawValue>) -> Option<String> {
    field(raw)
}

/// Whether a raw value is `true`.
pub(super) fn is_true(raw: Option<&RawValue>) -> bool {
    raw.is_some_and(|raw| raw.get() == "true")
}

/// The items of a raw JSON array, each still raw; none when it is not an array.
pub(super) fn items(raw: Option<&RawValue>) -> Vec<&RawValue> {
    field(raw).unwrap_or_default()
}
