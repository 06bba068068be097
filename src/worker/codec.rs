//! JS values ⇄ protocol messages (src/protocol.rs), read and written field by field with
//! `Reflect` (no serde machinery, no formatting in the module). Names stay JS strings until
//! they are read as UTF-16 code units, so no lone surrogate is ever replaced; every other
//! string (client ids, database names) is read the same way.

use crate::prelude::*;
use js_sys::{Array, JsString, Number, Object, Uint16Array, Uint32Array};
use wasm_bindgen::prelude::wasm_bindgen;
use wasm_bindgen::{JsCast, JsValue};

use crate::core::Mode;
use crate::protocol::{ClientMessage, WorkerMessage, OLDEST, VERSION};

pub(crate) enum Decoded {
    Message(ClientMessage),
    /// `adopt`: connect the port transferred with it as a new client.
    Adopt,
}

/// A message that could not be accepted: the request id to answer, when one was read.
pub(crate) type Refused = (Option<u32>, &'static str);

/// The protocol's words (field names, message types, modes), each made a JS string once:
/// a string made from Rust text costs a UTF-8 decode at every use, so decoding and encoding
/// a message make none. One list gives both the names and their text, so they cannot drift.
macro_rules! words {
    ($($word:ident = $text:literal,)*) => {
        #[derive(Clone, Copy)]
        enum Word {
            $($word,)*
        }

        /// [`Word`]'s texts, in its order, each followed by a space.
        const WORDS: &str = concat!($($text, " ",)*);
    };
}

words! {
    V = "v",
    Id = "id",
    Type = "type",
    ClientId = "clientId",
    N = "n",
    Db = "db",
    Name = "name",
    Names = "names",
    Mode = "mode",
    IfAvailable = "ifAvailable",
    Steal = "steal",
    Exclusive = "exclusive",
    Shared = "shared",
    Epoch = "epoch",
    ClientIds = "clientIds",
    Held = "held",
    Pending = "pending",
    Message = "message",
    Hello = "hello",
    Watch = "watch",
    Request = "request",
    Reclaim = "reclaim",
    Release = "release",
    Abort = "abort",
    Query = "query",
    Goodbye = "goodbye",
    Adopt = "adopt",
    Welcome = "welcome",
    Granted = "granted",
    NotAvailable = "notAvailable",
    Stolen = "stolen",
    Snapshot = "snapshot",
    Error = "error",
    Evicted = "evicted",
    Redirect = "redirect",
    Url = "url",
    T = "t",
}

pub(crate) struct Codec {
    words: Vec<JsValue>,
}

/// One message's fields, each read once.
struct Fields<'a> {
    codec: &'a Codec,
    data: &'a JsValue,
}

impl Fields<'_> {
    fn get(&self, key: Word) -> JsValue {
        // (A message's data, cloned: an object's fields are plain values, and reading one
        // throws nothing. Anything else has none.)
        if self.data.is_object() {
            get_property(self.data, self.codec.word(key))
        } else {
            JsValue::UNDEFINED
        }
    }

    /// An optional field: absent (undefined or null) → `Ok(None)`, mistyped → `Err`.
    fn opt<T>(&self, key: Word, read: impl Fn(&JsValue) -> Option<T>) -> Result<Option<T>, ()> {
        let value = self.get(key);
        if value.is_undefined() || value.is_null() {
            return Ok(None);
        }
        read(&value).map(Some).ok_or(())
    }
}

/// A u32 (ids, the version): an integral number in range. (Checked by
/// `Number.isSafeInteger`, then read as a number: no `Option<f64>` crossing.)
fn read_u32(value: &JsValue) -> Option<u32> {
    if !Number::is_safe_integer(value) {
        return None;
    }
    let n = value.unchecked_into_f64();
    (n >= 0.0 && n <= f64::from(u32::MAX)).then_some(n as u32)
}

/// A boolean, by identity (no `Option<bool>` crossing).
fn read_bool(value: &JsValue) -> Option<bool> {
    if *value == JsValue::TRUE {
        Some(true)
    } else if *value == JsValue::FALSE {
        Some(false)
    } else {
        None
    }
}

/// A time in ms; 0 (none said) for anything but a non-negative integral number.
fn read_time(value: &JsValue) -> u64 {
    if Number::is_safe_integer(value) {
        value.unchecked_into_f64() as u64
    } else {
        0
    }
}

impl Codec {
    pub(crate) fn new() -> Codec {
        Codec {
            // (The last space leaves an empty string at the end, never looked up.)
            words: {
                let words = JsString::from(WORDS).split(" ");
                (0..words.length()).map(|at| words.get(at)).collect()
            },
        }
    }

    fn word(&self, word: Word) -> &JsValue {
        &self.words[word as usize]
    }

    /// A message is an object with the protocol's fields. Anything else (a primitive, an
    /// array) has no `v` to read, and is refused for that.
    pub(crate) fn decode(&self, data: &JsValue) -> Result<Decoded, Refused> {
        let fields = Fields { codec: self, data };
        let id = fields
            .opt(Word::Id, read_u32)
            .map_err(|_| (None, "malformed id"))?;
        if !matches!(fields.opt(Word::V, read_u32), Ok(Some(v)) if v >= OLDEST) {
            return Err((id, "unsupported protocol version"));
        }
        let malformed = |_| (id, "malformed message");
        // (A type that is not one of the words, a string or not, is unknown.)
        let kind = fields.get(Word::Type);

        let is = |word| kind == *self.word(word);
        let need_id = || id.ok_or((None, "missing id"));
        let text = |key| fields.opt(key, decode_text).map_err(malformed);
        let flag = |key| {
            Ok(fields
                .opt(key, read_bool)
                .map_err(malformed)?
                .unwrap_or(false))
        };
        let names = || {
            // (`name` a string, or `names` an array of strings.)
            decode_lock_names(&fields).ok_or((id, "malformed name"))
        };
        let mode = || {
            let mode = fields.get(Word::Mode);
            if mode == *self.word(Word::Exclusive) {
                Ok(Mode::Exclusive)
            } else if mode == *self.word(Word::Shared) {
                Ok(Mode::Shared)
            } else {
                Err((id, "malformed mode")) // (neither "exclusive" nor "shared")
            }
        };
        // (The frequent types first: each test is a call into JS.)
        let message = if is(Word::Request) {
            ClientMessage::Request {
                id: need_id()?,
                names: names()?,
                mode: mode()?,
                if_available: flag(Word::IfAvailable)?,
                steal: flag(Word::Steal)?,
                at: read_time(&fields.get(Word::T)),
            }
        } else if is(Word::Release) {
            ClientMessage::Release { id: need_id()? }
        } else if is(Word::Abort) {
            ClientMessage::Abort { id: need_id()? }
        } else if is(Word::Query) {
            ClientMessage::Query {
                id: need_id()?,
                at: read_time(&fields.get(Word::T)),
            }
        } else if is(Word::Hello) {
            ClientMessage::Hello {
                client_id: text(Word::ClientId)?.ok_or((None, "hello without clientId"))?,
                db: text(Word::Db)?,
                n: fields
                    .opt(Word::N, read_u32)
                    .map_err(malformed)?
                    .unwrap_or(0),
            }
        } else if is(Word::Watch) {
            ClientMessage::Watch {
                db: text(Word::Db)?,
            }
        } else if is(Word::Reclaim) {
            ClientMessage::Reclaim {
                id: need_id()?,
                names: names()?,
                mode: mode()?,
            }
        } else if is(Word::Goodbye) {
            // (Its children's clientIds come as `names`: no other reader needed.)
            ClientMessage::Goodbye {
                children: decode_lock_names(&fields),
            }
        } else if is(Word::Adopt) {
            return Ok(Decoded::Adopt);
        } else {
            return Err((id, "unknown message type"));
        };
        Ok(Decoded::Message(message))
    }

    fn set(&self, object: &Object, key: Word, value: &JsValue) {
        // Setting a data property on a plain new object cannot fail.
        set_property(object, self.word(key), value);
    }

    pub(crate) fn encode(&self, message: &WorkerMessage) -> JsValue {
        let object = Object::new();
        self.set(&object, Word::V, &VERSION.into());
        let (kind, id) = match message {
            WorkerMessage::Welcome { epoch, db } => {
                self.set(&object, Word::Epoch, &encode_text(epoch));
                self.set(&object, Word::Db, &encode_text(db));
                (Word::Welcome, None)
            }
            WorkerMessage::Granted { id } => (Word::Granted, Some(*id)),
            WorkerMessage::NotAvailable { id } => (Word::NotAvailable, Some(*id)),
            WorkerMessage::Stolen { id } => (Word::Stolen, Some(*id)),
            WorkerMessage::Snapshot {
                id,
                names,
                client_ids,
                held,
                pending,
            } => {
                self.set(&object, Word::Names, &encode_text(names));
                let ids: Array = client_ids.iter().map(|c| encode_text(c)).collect();
                self.set(&object, Word::ClientIds, &ids);
                self.set(&object, Word::Held, &Uint32Array::from(&held[..]));
                self.set(&object, Word::Pending, &Uint32Array::from(&pending[..]));
                (Word::Snapshot, Some(*id))
            }
            WorkerMessage::Error { id, message } => {
                self.set(&object, Word::Message, &(*message).into());
                (Word::Error, *id)
            }
            WorkerMessage::Evicted => (Word::Evicted, None),
            WorkerMessage::Redirect { url } => {
                self.set(&object, Word::Url, &encode_text(url));
                (Word::Redirect, None)
            }
        };
        self.set(&object, Word::Type, self.word(kind));
        if let Some(id) = id {
            self.set(&object, Word::Id, &id.into());
        }
        object.into()
    }
}

/// `name` (one string) or `names` (a scope: an array of strings; the core checks their
/// order). Little is reserved from the array's length, which a sparse array sets at will
/// (reserving `new Array(2 ** 32 - 1)`'s would overflow: a trap, ending the worker, and the
/// request, re-declared to each new worker, would end every one): its entries are read
/// until one is not a string.
fn decode_lock_names(fields: &Fields<'_>) -> Option<Vec<Vec<u16>>> {
    let name = fields.get(Word::Name);
    if !name.is_undefined() {
        return Some(alloc::vec![decode_text(&name)?]);
    }
    let names = fields.get(Word::Names).dyn_into::<Array>().ok()?;
    let mut decoded = Vec::with_capacity(names.length().min(64) as usize);
    for at in 0..names.length() {
        decoded.push(decode_text(&names.get(at))?);
    }
    Some(decoded)
}

/// A DOMString's code units, read as they are (no UTF-8 round trip, which would replace
/// lone surrogates with U+FFFD).
pub(crate) fn decode_text(value: &JsValue) -> Option<Vec<u16>> {
    let text = value.dyn_ref::<JsString>()?;
    let length = text.length();
    let mut units = Vec::with_capacity(length as usize);
    for at in 0..length {
        units.push(text.char_code_at(at) as u16);
    }
    Some(units)
}

/// A DOMString from its code units, nothing replaced: well-formed UTF-16 through a
/// `TextDecoder("utf-16le")` in one call (a 10,000-lock snapshot's names are one string),
/// lone surrogates (which that decoder would replace) by `String.fromCharCode`, in chunks
/// that fit an argument list.
pub(crate) fn encode_text(units: &[u16]) -> JsValue {
    if well_formed(units) {
        // A Uint16Array's bytes are in the platform's order, little-endian wherever wasm runs.
        // `ignoreBOM`: a leading U+FEFF is text, not a byte order mark to drop.
        let options = Object::new();
        set_property(&options, &"ignoreBOM".into(), &true.into());
        return Utf16Decoder::new("utf-16le", &options)
            .decode(&Uint16Array::from(units))
            .into();
    }
    let mut text = JsString::from("");
    for chunk in units.chunks(8192) {
        text = text.concat(&JsString::from_char_code(chunk));
    }
    text.into()
}

/// Whether every surrogate in `units` is half of a pair.
fn well_formed(units: &[u16]) -> bool {
    let mut i = 0;
    while i < units.len() {
        match units[i] {
            0xD800..=0xDBFF if matches!(units.get(i + 1), Some(0xDC00..=0xDFFF)) => i += 2,
            0xD800..=0xDFFF => return false,
            _ => i += 1,
        }
    }
    true
}

#[wasm_bindgen]
extern "C" {
    /// `Reflect.set` without js-sys's `catch`: on a plain new object it throws nothing.
    #[wasm_bindgen(js_namespace = Reflect, js_name = set)]
    fn set_property(target: &Object, key: &JsValue, value: &JsValue);

    /// `Reflect.get` without js-sys's `catch`, for objects whose fields have no getters.
    #[wasm_bindgen(js_namespace = Reflect, js_name = get)]
    pub(crate) fn get_property(target: &JsValue, key: &JsValue) -> JsValue;

    /// `TextDecoder`, returning the decoded text as a JS string (web-sys's binding would copy
    /// it into a Rust `String` and back).
    #[wasm_bindgen(js_name = TextDecoder)]
    type Utf16Decoder;

    #[wasm_bindgen(constructor, js_class = TextDecoder)]
    fn new(label: &str, options: &Object) -> Utf16Decoder;

    #[wasm_bindgen(method, js_class = TextDecoder)]
    fn decode(this: &Utf16Decoder, input: &Uint16Array) -> JsString;
}
