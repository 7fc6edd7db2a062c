//! SCAN cursors. Clients (redis-cli, redis-py) read a cursor as an unsigned integer, while a
//! sorted store resumes from a key: the table maps each cursor it hands out to the key to
//! resume after. It holds the most recent `CAPACITY` cursors; an older one is unknown and its
//! SCAN gets an error (the client starts again from 0). Every key present for a whole iteration
//! is returned exactly once, as Redis promises, since iteration is in key order.

use std::collections::{HashMap, VecDeque};

const CAPACITY: usize = 4096;

#[derive(Default)]
pub struct Cursors {
    next: u64,
    resume: HashMap<u64, Vec<u8>>,
    order: VecDeque<u64>,
}

impl Cursors {
    /// A new cursor that resumes after `key` (never 0, which starts and ends an iteration).
    pub fn issue(&mut self, key: Vec<u8>) -> u64 {
        self.next += 1;
        let id = self.next;
        self.resume.insert(id, key);
        self.order.push_back(id);
        if self.order.len() > CAPACITY {
            if let Some(old) = self.order.pop_front() {
                self.resume.remove(&old);
            }
        }
        id
    }

    /// The key cursor `id` resumes after, if the table still holds it.
    pub fn resume_after(&self, id: u64) -> Option<&[u8]> {
        self.resume.get(&id).map(Vec::as_slice)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forgets_the_oldest_cursors() {
        let mut c = Cursors::default();
        let first = c.issue(b"a".to_vec());
        for i in 0..CAPACITY {
            c.issue(i.to_string().into_bytes());
        }
        assert_eq!(c.resume_after(first), None);
        assert_eq!(c.resume_after(first + CAPACITY as u64), Some(format!("{}", CAPACITY - 1).as_bytes()));
        assert_eq!(c.resume_after(0), None);
    }
}
