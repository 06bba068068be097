//! JS values ⇄ protocol messages, with serde-wasm-bindgen.

use serde::Serialize;
use wasm_bindgen::JsValue;

use crate::protocol::{ClientMessage, Envelope, Header, WorkerMessage, VERSION};

/// A message that could not be accepted, with the request id to answer when one was read.
pub(crate) struct Refused {
    pub(crate) id: Option<u32>,
    pub(crate) message: String,
}

pub(crate) fn decode(data: &JsValue) -> Result<ClientMessage, Refused> {
    let header: Header = serde_wasm_bindgen::from_value(data.clone()).map_err(|e| Refused {
        id: None,
        message: format!("malformed message: {e}"),
    })?;
    if header.v != Some(VERSION) {
        return Err(Refused {
            id: header.id,
            message: format!(
                "unsupported protocol version {:?}, expected {VERSION}",
                header.v
            ),
        });
    }
    serde_wasm_bindgen::from_value(data.clone()).map_err(|e| Refused {
        id: header.id,
        message: format!("malformed message: {e}"),
    })
}

pub(crate) fn encode(message: WorkerMessage<'_>) -> JsValue {
    let serializer = serde_wasm_bindgen::Serializer::new().serialize_maps_as_objects(true);
    Envelope::from(message)
        .serialize(&serializer)
        .expect("protocol messages are plain data")
}
