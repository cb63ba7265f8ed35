//! The first reading of a message's body, which builds nothing: whether it is a
//! JSON object, its `id` and `method`, whether it answers (`result`, `error`), and
//! how many values it holds, so the transport builds a message's tree only when
//! the tree stays within a few times the body (a tree of `[0,0,…]` takes some 35
//! bytes a byte). Values are counted as serde's `IgnoredAny` skips them, within
//! `serde_json`'s nesting limit.

use std::fmt;

use lsp_server::RequestId;
use serde::Deserialize;
use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

/// What the first reading found.
#[derive(Debug, Default)]
pub(crate) struct Outline {
    /// The body is a JSON object (anything else is no JSON-RPC message).
    pub object: bool,
    pub id: Id,
    pub method: Method,
    /// A `result` or an `error` member: an answer to one of the server's requests.
    pub reply: bool,
    /// Every value, at any depth, the body itself included.
    pub values: usize,
    /// Every member of every object.
    pub members: usize,
}

/// A message's `id`.
#[derive(Debug, Default)]
pub(crate) enum Id {
    /// No `id`: a notification.
    #[default]
    Absent,
    /// A string, or an integer of 32 bits (as `lsp-server` keeps them).
    Valid(RequestId),
    /// A number the server cannot give back as it came (a fraction, or more than
    /// 32 bits): answered with the number as JSON read it.
    Number(serde_json::Number),
    /// Neither a number nor a string: `null`, a boolean, an array or an object.
    Invalid,
}

/// A message's `method`.
#[derive(Debug, Default)]
pub(crate) enum Method {
    #[default]
    Absent,
    Name(String),
    /// Present, and not a string.
    NotText,
}

/// The bytes a value of a `serde_json::Value` tree takes at most: the value, and
/// twice that where a growing array's spare room holds it.
const VALUE_BYTES: usize = 64;

/// The bytes an object's member takes beyond its value, in the object's tree map.
const MEMBER_BYTES: usize = 64;

impl Outline {
    /// About the most a `serde_json::Value` tree of the body takes, beside its
    /// strings (which take what they take in the body).
    pub fn tree_bytes(&self) -> usize {
        self.values
            .saturating_mul(VALUE_BYTES)
            .saturating_add(self.members.saturating_mul(MEMBER_BYTES))
    }
}

impl<'de> Deserialize<'de> for Outline {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Outline, D::Error> {
        deserializer.deserialize_any(OutlineVisitor)
    }
}

struct OutlineVisitor;

/// The members the outline reads; every other is counted and skipped.
#[derive(Deserialize)]
#[serde(field_identifier, rename_all = "lowercase")]
enum Field {
    Id,
    Method,
    Result,
    Error,
    #[serde(other)]
    Other,
}

impl<'de> Visitor<'de> for OutlineVisitor {
    type Value = Outline;

    fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        formatter.write_str("a JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Outline, A::Error> {
        let mut outline = Outline {
            object: true,
            values: 1,
            ..Outline::default()
        };
        let mut counts = Counts::default();
        while let Some(field) = map.next_key::<Field>()? {
            counts.members += 1;
            match field {
                Field::Id => outline.id = map.next_value_seed(SmallSeed(&mut counts))?.id(),
                Field::Method => {
                    outline.method = map.next_value_seed(SmallSeed(&mut counts))?.method();
                }
                Field::Result | Field::Error => {
                    outline.reply = true;
                    map.next_value_seed(Tally(&mut counts))?;
                }
                Field::Other => map.next_value_seed(Tally(&mut counts))?,
            }
        }
        outline.values += counts.values;
        outline.members = counts.members;
        Ok(outline)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Outline, A::Error> {
        let mut counts = Counts::default();
        Tally(&mut counts).visit_seq(seq)?;
        Ok(Outline {
            values: counts.values,
            ..Outline::default()
        })
    }

    fn visit_bool<E>(self, _: bool) -> Result<Outline, E> {
        Ok(Outline::scalar())
    }

    fn visit_i64<E>(self, _: i64) -> Result<Outline, E> {
        Ok(Outline::scalar())
    }

    fn visit_u64<E>(self, _: u64) -> Result<Outline, E> {
        Ok(Outline::scalar())
    }

    fn visit_f64<E>(self, _: f64) -> Result<Outline, E> {
        Ok(Outline::scalar())
    }

    fn visit_str<E>(self, _: &str) -> Result<Outline, E> {
        Ok(Outline::scalar())
    }

    fn visit_unit<E>(self) -> Result<Outline, E> {
        Ok(Outline::scalar())
    }
}

impl Outline {
    /// A body that is one number, string, boolean or `null`.
    fn scalar() -> Outline {
        Outline {
            values: 1,
            ..Outline::default()
        }
    }
}

/// The values and members counted so far.
#[derive(Default)]
struct Counts {
    values: usize,
    members: usize,
}

/// Counts one value and everything in it, keeping nothing.
struct Tally<'a>(&'a mut Counts);

impl<'de> DeserializeSeed<'de> for Tally<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Tally<'_> {
    type Value = ();

    fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        formatter.write_str("a JSON value")
    }

    fn visit_bool<E>(self, _: bool) -> Result<(), E> {
        self.0.values += 1;
        Ok(())
    }

    fn visit_i64<E>(self, _: i64) -> Result<(), E> {
        self.0.values += 1;
        Ok(())
    }

    fn visit_u64<E>(self, _: u64) -> Result<(), E> {
        self.0.values += 1;
        Ok(())
    }

    fn visit_f64<E>(self, _: f64) -> Result<(), E> {
        self.0.values += 1;
        Ok(())
    }

    fn visit_str<E>(self, _: &str) -> Result<(), E> {
        self.0.values += 1;
        Ok(())
    }

    fn visit_unit<E>(self) -> Result<(), E> {
        self.0.values += 1;
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let counts = self.0;
        counts.values += 1;
        while seq.next_element_seed(Tally(&mut *counts))?.is_some() {}
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let counts = self.0;
        counts.values += 1;
        while map.next_key::<IgnoredAny>()?.is_some() {
            counts.members += 1;
            map.next_value_seed(Tally(&mut *counts))?;
        }
        Ok(())
    }
}

/// A member's value as the outline keeps it: a string or a number, and nothing of
/// anything else.
enum Small {
    Text(String),
    Number(serde_json::Number),
    Other,
}

impl Small {
    fn id(self) -> Id {
        match self {
            Small::Text(text) => Id::Valid(text.into()),
            Small::Number(number) => match number.as_i64().and_then(|n| i32::try_from(n).ok()) {
                Some(small) => Id::Valid(small.into()),
                None => Id::Number(number),
            },
            Small::Other => Id::Invalid,
        }
    }

    fn method(self) -> Method {
        match self {
            Small::Text(text) => Method::Name(text),
            Small::Number(_) | Small::Other => Method::NotText,
        }
    }
}

/// Reads a string or a number, counting the values of anything else.
struct SmallSeed<'a>(&'a mut Counts);

impl<'de> DeserializeSeed<'de> for SmallSeed<'_> {
    type Value = Small;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Small, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for SmallSeed<'_> {
    type Value = Small;

    fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        formatter.write_str("a JSON value")
    }

    fn visit_i64<E>(self, number: i64) -> Result<Small, E> {
        self.0.values += 1;
        Ok(Small::Number(number.into()))
    }

    fn visit_u64<E>(self, number: u64) -> Result<Small, E> {
        self.0.values += 1;
        Ok(Small::Number(number.into()))
    }

    fn visit_f64<E>(self, number: f64) -> Result<Small, E> {
        self.0.values += 1;
        Ok(serde_json::Number::from_f64(number).map_or(Small::Other, Small::Number))
    }

    fn visit_str<E>(self, text: &str) -> Result<Small, E> {
        self.0.values += 1;
        Ok(Small::Text(text.to_string()))
    }

    fn visit_bool<E>(self, _: bool) -> Result<Small, E> {
        self.0.values += 1;
        Ok(Small::Other)
    }

    fn visit_unit<E>(self) -> Result<Small, E> {
        self.0.values += 1;
        Ok(Small::Other)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Small, A::Error> {
        Tally(self.0).visit_seq(seq)?;
        Ok(Small::Other)
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Small, A::Error> {
        Tally(self.0).visit_map(map)?;
        Ok(Small::Other)
    }
}
