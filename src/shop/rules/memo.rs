//! What the proposers derive from a catalog (the rules' name index, the LLM's
//! trigrams), computed once per catalog and kept per process: every turn of a bot
//! reads the same catalog until it changes, and a turn looks at it several times.

use std::collections::HashMap;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::sync::{Arc, Mutex};

use crate::shop::contract::CatalogEntry;
use crate::shop::core::ProductId;

/// Catalogs remembered at once (bots served, and a catalog's recent versions).
const KEPT: usize = 64;

/// A value derived from a catalog's product ids, names and tags, in catalog order.
struct Derived<T> {
    /// What it was derived from, to tell one catalog from another for certain.
    names: Vec<(ProductId, String, Vec<String>, String)>,
    value: Arc<T>,
}

pub struct CatalogMemo<T> {
    kept: Mutex<HashMap<u64, Derived<T>>>,
}

impl<T> Default for CatalogMemo<T> {
    fn default() -> Self {
        CatalogMemo {
            kept: Mutex::new(HashMap::new()),
        }
    }
}

impl<T> CatalogMemo<T> {
    /// The value for `catalog`, derived by `derive` the first time it is seen.
    pub fn get(
        &self,
        catalog: &[CatalogEntry],
        derive: impl FnOnce(&[CatalogEntry]) -> T,
    ) -> Arc<T> {
        let mut hasher = DefaultHasher::new();
        for entry in catalog {
            (
                entry.product_id,
                entry.name.as_str(),
                &entry.tags,
                entry.description.as_str(),
            )
                .hash(&mut hasher);
        }
        let key = hasher.finish();
        let same = |names: &[(ProductId, String, Vec<String>, String)]| {
            names.len() == catalog.len()
                && names
                    .iter()
                    .zip(catalog)
                    .all(|((id, name, tags, description), e)| {
                        *id == e.product_id
                            && *name == e.name
                            && *tags == e.tags
                            && *description == e.description
                    })
        };
        if let Some(hit) = self.kept.lock().expect("catalog memo lock").get(&key)
            && same(&hit.names)
        {
            return hit.value.clone();
        }
        let value = Arc::new(derive(catalog));
        let names = catalog
            .iter()
            .map(|e| {
                (
                    e.product_id,
                    e.name.clone(),
                    e.tags.clone(),
                    e.description.clone(),
                )
            })
            .collect();
        let mut kept = self.kept.lock().expect("catalog memo lock");
        if kept.len() >= KEPT {
            kept.clear();
        }
        kept.insert(
            key,
            Derived {
                names,
                value: value.clone(),
            },
        );
        value
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(id: ProductId, name: &str) -> CatalogEntry {
        CatalogEntry {
            product_id: id,
            name: name.into(),
            price_minor: 100,
            description: String::new(),
            tags: Vec::new(),
            allergens: Vec::new(),
        }
    }

    #[test]
    fn a_catalog_is_derived_once_and_a_changed_one_again() {
        let memo = CatalogMemo::default();
        let derivations = std::cell::Cell::new(0);
        let count = |c: &[CatalogEntry]| {
            derivations.set(derivations.get() + 1);
            c.len()
        };
        let catalog = vec![entry(1, "Matcha"), entry(2, "Brownie")];
        assert_eq!(*memo.get(&catalog, count), 2);
        assert_eq!(*memo.get(&catalog, count), 2);
        assert_eq!(derivations.get(), 1);
        let renamed = vec![entry(1, "Matcha latte"), entry(2, "Brownie")];
        memo.get(&renamed, count);
        let grown = vec![entry(1, "Matcha"), entry(2, "Brownie"), entry(3, "Té")];
        assert_eq!(*memo.get(&grown, count), 3);
        assert_eq!(derivations.get(), 3);
    }
}
