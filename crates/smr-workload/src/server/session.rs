//! What the server remembers of one connection between its commands: its id, the name it gave
//! itself, and the transaction it is queueing (between MULTI and EXEC or DISCARD). The
//! protocol it speaks (RESP2 until HELLO 3) goes with its replies (`resp::Replies`).

pub struct Session {
    /// Unique among the server's connections (CLIENT ID, HELLO's `id`).
    pub id: u64,
    /// CLIENT SETNAME's or HELLO SETNAME's name.
    pub name: Option<Vec<u8>>,
    pub transaction: Option<Transaction>,
}

impl Session {
    pub fn new(id: u64) -> Session {
        Session { id, name: None, transaction: None }
    }
}

/// Commands queued after MULTI.
#[derive(Default)]
pub struct Transaction {
    pub queued: Vec<Vec<Vec<u8>>>,
    /// Bytes of the queued arguments (bounded by the server's query buffer limit).
    pub bytes: usize,
    /// A command was refused while queueing (unknown, wrong arity, over the limit): EXEC
    /// then discards the transaction, as Redis does.
    pub refused: bool,
}
