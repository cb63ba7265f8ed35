//! One way to build a cache key: a hasher (xxh3) fed named parts in a fixed order.
//! Unlike parts combined by XOR, the order of the parts counts and a part given twice
//! does not cancel itself; every key of the run (a configuration's, a chart's, a
//! file's) is built here.

use xxhash_rust::xxh3::Xxh3Default;

/// A cache key being built: `CacheKey::new("file").part("bytes", hash).finish()`.
pub(crate) struct CacheKey(Xxh3Default);

impl CacheKey {
    /// A key of the kind `kind` (kinds never collide with each other).
    pub(crate) fn new(kind: &str) -> CacheKey {
        let mut hasher = Xxh3Default::new();
        hasher.update(&(kind.len() as u64).to_le_bytes());
        hasher.update(kind.as_bytes());
        CacheKey(hasher)
    }

    /// Adds the part `name` with the value `value`.
    pub(crate) fn part(mut self, name: &str, value: u64) -> CacheKey {
        self.name(name);
        self.0.update(&value.to_le_bytes());
        self
    }

    /// Adds the part `name`, which may be absent (absent is not the value 0).
    pub(crate) fn optional(mut self, name: &str, value: Option<u64>) -> CacheKey {
        self.name(name);
        match value {
            Some(value) => {
                self.0.update(&[1]);
                self.0.update(&value.to_le_bytes());
            }
            None => self.0.update(&[0]),
        }
        self
    }

    /// Adds a part in place (for loops).
    pub(crate) fn add(&mut self, name: &str, value: u64) {
        self.name(name);
        self.0.update(&value.to_le_bytes());
    }

    /// Adds the part `name` made of `bytes`, in place (length-prefixed, so two parts
    /// never read as one).
    pub(crate) fn add_bytes(&mut self, name: &str, bytes: &[u8]) {
        self.name(name);
        self.0.update(&(bytes.len() as u64).to_le_bytes());
        self.0.update(bytes);
    }

    fn name(&mut self, name: &str) {
        self.0.update(&(name.len() as u64).to_le_bytes());
        self.0.update(name.as_bytes());
    }

    /// The key.
    pub(crate) fn finish(&self) -> u64 {
        self.0.digest()
    }
}

#[cfg(test)]
mod tests {
    use super::CacheKey;

    #[test]
    fn order_counts_and_nothing_cancels() {
        let ab = CacheKey::new("k").part("a", 1).part("b", 2).finish();
        let ba = CacheKey::new("k").part("b", 2).part("a", 1).finish();
        assert_ne!(ab, ba);
        let twice = CacheKey::new("k").part("a", 1).part("a", 1).finish();
        assert_ne!(twice, CacheKey::new("k").finish());
        assert_ne!(
            CacheKey::new("k").optional("x", None).finish(),
            CacheKey::new("k").optional("x", Some(0)).finish()
        );
        let split = |first: &[u8], second: &[u8]| {
            let mut key = CacheKey::new("k");
            key.add_bytes("p", first);
            key.add_bytes("q", second);
            key.finish()
        };
        assert_ne!(split(b"ab", b"c"), split(b"a", b"bc"));
        assert_ne!(CacheKey::new("k").finish(), CacheKey::new("l").finish());
    }
}
