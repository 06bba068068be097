//! JS values ⇄ protocol messages (src/protocol.rs), read and written field by field with
//! `Reflect` (no serde machinery, no formatting in the module). Names stay JS strings until
//! they are read as UTF-16 code units, so no lone surrogate is ever replaced.

use crate::prelude::*;
use js_sys::{Array, JsString, Object, Reflect, Uint16Array, Uint32Array};
use wasm_bindgen::prelude::wasm_bindgen;
use wasm_bindgen::{JsCast, JsValue};

use crate::core::Mode;
use crate::protocol::{ClientMessage, WorkerMessage, VERSION};

pub(crate) enum Decoded {
    Message(ClientMessage),
    /// `adopt`: connect the port transferred with it as a new client.
    Adopt,
}

/// A message that could not be accepted: the request id to answer, when one was read.
pub(crate) type Refused = (Option<u32>, &'static str);

/// One message's fields, each read once.
struct Fields<'a>(&'a JsValue);

impl Fields<'_> {
    fn get(&self, key: &str) -> JsValue {
        Reflect::get(self.0, &key.into()).unwrap_or(JsValue::UNDEFINED)
    }

    /// An optional field: absent (undefined or null) → `Ok(None)`, mistyped → `Err`.
    fn opt<T>(&self, key: &str, read: impl Fn(&JsValue) -> Option<T>) -> Result<Option<T>, ()> {
        let value = self.get(key);
        if value.is_undefined() || value.is_null() {
            return Ok(None);
        }
        read(&value).map(Some).ok_or(())
    }
}

/// A u32 (ids, the version): an integral number in range.
fn read_u32(value: &JsValue) -> Option<u32> {
    let n = value.as_f64()?;
    (n >= 0.0 && n <= f64::from(u32::MAX) && n == (n as u32) as f64).then_some(n as u32)
}

pub(crate) fn decode(data: &JsValue) -> Result<Decoded, Refused> {
    if !data.is_object() || Array::is_array(data) {
        return Err((None, "malformed message"));
    }
    let fields = Fields(data);
    let id = fields
        .opt("id", read_u32)
        .map_err(|_| (None, "malformed id"))?;
    if fields.opt("v", read_u32) != Ok(Some(VERSION)) {
        return Err((id, "unsupported protocol version"));
    }
    let malformed = |_| (id, "malformed message");
    let kind = fields.opt("type", JsValue::as_string).map_err(malformed)?;
    let need_id = || id.ok_or((None, "missing id"));
    let text = |key| fields.opt(key, JsValue::as_string).map_err(malformed);
    let flag = |key| {
        Ok(fields
            .opt(key, JsValue::as_bool)
            .map_err(malformed)?
            .unwrap_or(false))
    };
    let names =
        || decode_names(&fields).ok_or((id, "name must be a string, names an array of strings"));
    let mode = || match fields.get("mode").as_string().as_deref() {
        Some("exclusive") => Ok(Mode::Exclusive),
        Some("shared") => Ok(Mode::Shared),
        _ => Err((id, "mode must be \"exclusive\" or \"shared\"")),
    };
    let message = match kind.as_deref() {
        Some("hello") => ClientMessage::Hello {
            client_id: text("clientId")?.ok_or((None, "hello without clientId"))?,
            db: text("db")?,
        },
        Some("watch") => ClientMessage::Watch { db: text("db")? },
        Some("request") => ClientMessage::Request {
            id: need_id()?,
            names: names()?,
            mode: mode()?,
            if_available: flag("ifAvailable")?,
            steal: flag("steal")?,
        },
        Some("reclaim") => ClientMessage::Reclaim {
            id: need_id()?,
            names: names()?,
            mode: mode()?,
        },
        Some("release") => ClientMessage::Release { id: need_id()? },
        Some("abort") => ClientMessage::Abort { id: need_id()? },
        Some("query") => ClientMessage::Query { id: need_id()? },
        Some("goodbye") => ClientMessage::Goodbye,
        Some("adopt") => return Ok(Decoded::Adopt),
        _ => return Err((id, "unknown message type")),
    };
    Ok(Decoded::Message(message))
}

/// `name` (one string) or `names` (a scope: an array of strings; the core checks their
/// order).
fn decode_names(fields: &Fields<'_>) -> Option<Vec<Vec<u16>>> {
    let name = fields.get("name");
    if !name.is_undefined() {
        return Some(alloc::vec![decode_name(&name)?]);
    }
    let names = fields.get("names").dyn_into::<Array>().ok()?;
    names.iter().map(|name| decode_name(&name)).collect()
}

/// A DOMString's code units, read as they are (no UTF-8 round trip, which would replace
/// lone surrogates with U+FFFD).
fn decode_name(value: &JsValue) -> Option<Vec<u16>> {
    Some(value.dyn_ref::<JsString>()?.iter().collect())
}

/// A DOMString from its code units, nothing replaced: well-formed UTF-16 through a
/// `TextDecoder("utf-16le")` in one call (a 10,000-lock snapshot's names are one string),
/// lone surrogates (which that decoder would replace) by `String.fromCharCode`, in chunks
/// that fit an argument list.
fn encode_name(units: &[u16]) -> JsValue {
    if well_formed(units) {
        // A Uint16Array's bytes are in the platform's order, little-endian wherever wasm runs.
        // `ignoreBOM`: a leading U+FEFF is text, not a byte order mark to drop.
        let options = Object::new();
        set(&options, "ignoreBOM", &true.into());
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
    /// `TextDecoder`, returning the decoded text as a JS string (web-sys's binding would copy
    /// it into a Rust `String` and back).
    #[wasm_bindgen(js_name = TextDecoder)]
    type Utf16Decoder;

    #[wasm_bindgen(constructor, js_class = TextDecoder)]
    fn new(label: &str, options: &Object) -> Utf16Decoder;

    #[wasm_bindgen(method, js_class = TextDecoder)]
    fn decode(this: &Utf16Decoder, input: &Uint16Array) -> JsString;
}

fn set(object: &Object, key: &str, value: &JsValue) {
    // Setting a data property on a plain new object cannot fail.
    let _ = Reflect::set(object, &key.into(), value);
}

pub(crate) fn encode(message: &WorkerMessage) -> JsValue {
    let object = Object::new();
    set(&object, "v", &VERSION.into());
    let (kind, id) = match message {
        WorkerMessage::Welcome { epoch, db } => {
            set(&object, "epoch", &(**epoch).into());
            set(&object, "db", &(**db).into());
            ("welcome", None)
        }
        WorkerMessage::Granted { id } => ("granted", Some(*id)),
        WorkerMessage::NotAvailable { id } => ("notAvailable", Some(*id)),
        WorkerMessage::Stolen { id } => ("stolen", Some(*id)),
        WorkerMessage::Snapshot {
            id,
            names,
            client_ids,
            held,
            pending,
        } => {
            set(&object, "names", &encode_name(names));
            let ids: Array = client_ids.iter().map(|c| JsValue::from(&**c)).collect();
            set(&object, "clientIds", &ids);
            set(&object, "held", &Uint32Array::from(&held[..]));
            set(&object, "pending", &Uint32Array::from(&pending[..]));
            ("snapshot", Some(*id))
        }
        WorkerMessage::Error { id, message } => {
            set(&object, "message", &(*message).into());
            ("error", *id)
        }
        WorkerMessage::Evicted => ("evicted", None),
    };
    set(&object, "type", &kind.into());
    if let Some(id) = id {
        set(&object, "id", &id.into());
    }
    object.into()
}
