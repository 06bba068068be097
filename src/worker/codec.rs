//! JS values ⇄ protocol messages (src/protocol.rs), read and written field by field with
//! `Reflect` (no serde machinery, no formatting in the module). Names stay JS strings until
//! they are read as UTF-16 code units, so no lone surrogate is ever replaced.

use crate::prelude::*;
use js_sys::{Array, JsString, Object, Reflect, Uint32Array};
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

/// A DOMString's code units. Converting a JS string to UTF-8 replaces lone surrogates with
/// U+FFFD, so a result without U+FFFD is exact; otherwise the units are read one by one.
fn decode_name(value: &JsValue) -> Option<Vec<u16>> {
    let text = value.dyn_ref::<JsString>()?;
    let utf8 = String::from(text);
    // U+FFFD in UTF-8, found without `str` pattern machinery (smaller in the module).
    if !utf8.as_bytes().windows(3).any(|w| w == [0xEF, 0xBF, 0xBD]) {
        return Some(utf8.encode_utf16().collect());
    }
    Some(text.iter().collect())
}

fn encode_name(units: &[u16]) -> JsValue {
    if let Ok(text) = String::from_utf16(units) {
        return text.into();
    }
    // Lone surrogates: from the code units themselves, in chunks that fit an argument list.
    let mut text = JsString::from("");
    for chunk in units.chunks(8192) {
        text = text.concat(&JsString::from_char_code(chunk));
    }
    text.into()
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
