//! JS values ⇄ protocol messages (src/protocol.rs). Messages are read with
//! serde-wasm-bindgen as one flat record; names stay JS strings until they are read as
//! UTF-16 code units, so no lone surrogate is ever replaced.

use js_sys::{Array, JsString, Object, Reflect};
use serde::Deserialize;
use wasm_bindgen::{JsCast, JsValue};

use crate::core::Mode;
use crate::protocol::{ClientMessage, LockInfo, WorkerMessage, VERSION};

/// Every field any message has; which ones are required depends on `type`.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Wire {
    v: Option<u32>,
    #[serde(rename = "type")]
    kind: Option<String>,
    id: Option<u32>,
    client_id: Option<String>,
    db: Option<String>,
    #[serde(default, with = "serde_wasm_bindgen::preserve")]
    name: JsValue,
    mode: Option<String>,
    if_available: Option<bool>,
    steal: Option<bool>,
}

pub(crate) enum Decoded {
    Message(ClientMessage),
    /// `adopt`: connect the port transferred with it as a new client.
    Adopt,
}

/// A message that could not be accepted: the request id to answer, when one was read.
pub(crate) type Refused = (Option<u32>, &'static str);

pub(crate) fn decode(data: &JsValue) -> Result<Decoded, Refused> {
    let wire: Wire =
        serde_wasm_bindgen::from_value(data.clone()).map_err(|_| (None, "malformed message"))?;
    let id = wire.id;
    if wire.v != Some(VERSION) {
        return Err((id, "unsupported protocol version"));
    }
    let need_id = || id.ok_or((None, "missing id"));
    let name = || decode_name(&wire.name).ok_or((id, "name must be a string"));
    let mode = || match wire.mode.as_deref() {
        Some("exclusive") => Ok(Mode::Exclusive),
        Some("shared") => Ok(Mode::Shared),
        _ => Err((id, "mode must be \"exclusive\" or \"shared\"")),
    };
    let message = match wire.kind.as_deref() {
        Some("hello") => ClientMessage::Hello {
            client_id: wire
                .client_id
                .clone()
                .ok_or((None, "hello without clientId"))?,
            db: wire.db.clone(),
        },
        Some("watch") => ClientMessage::Watch {
            db: wire.db.clone(),
        },
        Some("request") => ClientMessage::Request {
            id: need_id()?,
            name: name()?,
            mode: mode()?,
            if_available: wire.if_available.unwrap_or(false),
            steal: wire.steal.unwrap_or(false),
        },
        Some("reclaim") => ClientMessage::Reclaim {
            id: need_id()?,
            name: name()?,
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

/// A DOMString's code units. Converting a JS string to UTF-8 replaces lone surrogates with
/// U+FFFD, so a result without U+FFFD is exact; otherwise the units are read one by one.
fn decode_name(value: &JsValue) -> Option<Vec<u16>> {
    let text = value.dyn_ref::<JsString>()?;
    let utf8 = String::from(text);
    if !utf8.contains('\u{FFFD}') {
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
    for chunk in units.chunks(4096) {
        text = text.concat(&JsString::from_char_code(chunk));
    }
    text.into()
}

fn set(object: &Object, key: &str, value: &JsValue) {
    // Setting a data property on a plain new object cannot fail.
    let _ = Reflect::set(object, &key.into(), value);
}

fn mode_name(mode: Mode) -> &'static str {
    match mode {
        Mode::Exclusive => "exclusive",
        Mode::Shared => "shared",
    }
}

fn lock_infos(infos: &[LockInfo]) -> Array {
    infos
        .iter()
        .map(|info| {
            let entry = Object::new();
            set(&entry, "name", &encode_name(&info.name));
            set(&entry, "mode", &mode_name(info.mode).into());
            set(&entry, "clientId", &(*info.client_id).into());
            JsValue::from(entry)
        })
        .collect()
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
        WorkerMessage::Snapshot { id, held, pending } => {
            set(&object, "held", &lock_infos(held));
            set(&object, "pending", &lock_infos(pending));
            ("snapshot", Some(*id))
        }
        WorkerMessage::Error { id, message } => {
            set(&object, "message", &(*message).into());
            ("error", *id)
        }
    };
    set(&object, "type", &kind.into());
    if let Some(id) = id {
        set(&object, "id", &id.into());
    }
    object.into()
}
