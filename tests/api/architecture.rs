//! The house, checked: no two modules import each other (directly or around a
//! loop), the front doors reach the database only through the merchant actions,
//! the engine names no profile, and the pure cores touch no I/O crate. Read from
//! the source tree, so a new file is checked the day it lands.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// A module: its path from the crate root (`["shop", "core", "matrix"]`).
type Module = Vec<String>;

struct Tree {
    /// Every module and its source.
    modules: BTreeMap<Module, (PathBuf, String)>,
}

impl Tree {
    fn read() -> Tree {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut modules = BTreeMap::new();
        let mut stack = vec![root.clone()];
        while let Some(dir) = stack.pop() {
            for entry in std::fs::read_dir(&dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    stack.push(path);
                    continue;
                }
                if path.extension().is_none_or(|e| e != "rs") {
                    continue;
                }
                let rel = path.strip_prefix(&root).unwrap().with_extension("");
                let mut module: Module = rel
                    .components()
                    .map(|c| c.as_os_str().to_string_lossy().into_owned())
                    .collect();
                if module.last().is_some_and(|m| m == "mod") {
                    module.pop();
                }
                if module == ["lib"] || module == ["main"] {
                    module.clear();
                }
                let source = std::fs::read_to_string(&path).unwrap();
                modules.insert(module, (path, without_comments(&source)));
            }
        }
        Tree { modules }
    }

    /// The deepest module `path` names (a path may go on into an item).
    fn resolve(&self, path: &[String]) -> Option<Module> {
        (1..=path.len())
            .rev()
            .map(|n| path[..n].to_vec())
            .find(|m| self.modules.contains_key(m))
    }

    /// Every module each module refers to, by `crate::`, `super::` or `self::`
    /// paths (in `use` lines or inline, braces expanded).
    fn edges(&self) -> BTreeMap<Module, BTreeSet<Module>> {
        let path = regex::Regex::new(r"\b(crate|super|self)((?:::[A-Za-z_][A-Za-z0-9_]*)+)(::\{)?")
            .unwrap();
        let mut edges: BTreeMap<Module, BTreeSet<Module>> = BTreeMap::new();
        for (module, (_, source)) in &self.modules {
            for found in path.captures_iter(source) {
                let mut segments: Vec<String> = found[2]
                    .split("::")
                    .filter(|s| !s.is_empty())
                    .map(str::to_owned)
                    .collect();
                let mut base: Module = match &found[1] {
                    "crate" => Vec::new(),
                    "self" => module.clone(),
                    // `super` of `a/b.rs` and of `a/b/mod.rs` are both `a`.
                    _ => module[..module.len().saturating_sub(1)].to_vec(),
                };
                while segments.first().is_some_and(|s| s == "super") {
                    segments.remove(0);
                    base.pop();
                }
                let mut prefix = base;
                prefix.extend(segments);
                let mut targets = Vec::new();
                if found.get(3).is_some() {
                    let start = found.get(0).unwrap().end();
                    for item in braced(&source[start..]) {
                        let mut full = prefix.clone();
                        full.extend(item.split("::").map(str::to_owned));
                        targets.push(full);
                    }
                }
                targets.push(prefix);
                for target in targets {
                    if let Some(resolved) = self.resolve(&target)
                        && &resolved != module
                    {
                        edges.entry(module.clone()).or_default().insert(resolved);
                    }
                }
            }
        }
        edges
    }
}

/// The source without `//` comments (doc comments mention paths too).
fn without_comments(source: &str) -> String {
    source
        .lines()
        .map(|line| match line.find("//") {
            Some(at) if !line[..at].contains('"') => &line[..at],
            _ => line,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The paths inside a `{…}` group that starts `text` (nested groups flattened).
fn braced(text: &str) -> Vec<String> {
    let mut depth = 1;
    let mut end = 0;
    for (i, c) in text.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    end = i;
                    break;
                }
            }
            _ => {}
        }
    }
    let word = regex::Regex::new(r"[A-Za-z_][A-Za-z0-9_]*(?:::[A-Za-z_][A-Za-z0-9_]*)*").unwrap();
    word.find_iter(&text[..end])
        .map(|m| m.as_str().to_owned())
        .collect()
}

/// An edge between two modules, seen from their closest common parent: the two
/// children of that parent it connects. A module using its own submodules or its
/// parent is not a cycle worth the name (`mod.rs` re-exports, `super::` items).
fn lifted(from: &Module, to: &Module) -> Option<(Module, Module)> {
    let common = from.iter().zip(to).take_while(|(a, b)| a == b).count();
    if common == from.len() || common == to.len() {
        return None;
    }
    Some((from[..=common].to_vec(), to[..=common].to_vec()))
}

/// Strongly connected components of more than one module (Tarjan).
fn cycles(graph: &BTreeMap<Module, BTreeSet<Module>>) -> Vec<Vec<Module>> {
    struct State<'a> {
        graph: &'a BTreeMap<Module, BTreeSet<Module>>,
        index: BTreeMap<Module, usize>,
        low: BTreeMap<Module, usize>,
        stack: Vec<Module>,
        on_stack: BTreeSet<Module>,
        next: usize,
        found: Vec<Vec<Module>>,
    }
    fn visit(state: &mut State<'_>, v: &Module) {
        state.index.insert(v.clone(), state.next);
        state.low.insert(v.clone(), state.next);
        state.next += 1;
        state.stack.push(v.clone());
        state.on_stack.insert(v.clone());
        let neighbours: Vec<Module> = state
            .graph
            .get(v)
            .map(|n| n.iter().cloned().collect())
            .unwrap_or_default();
        for w in neighbours {
            if !state.index.contains_key(&w) {
                visit(state, &w);
                let low = state.low[v].min(state.low[&w]);
                state.low.insert(v.clone(), low);
            } else if state.on_stack.contains(&w) {
                let low = state.low[v].min(state.index[&w]);
                state.low.insert(v.clone(), low);
            }
        }
        if state.low[v] == state.index[v] {
            let mut component = Vec::new();
            loop {
                let w = state.stack.pop().unwrap();
                state.on_stack.remove(&w);
                let done = &w == v;
                component.push(w);
                if done {
                    break;
                }
            }
            if component.len() > 1 {
                state.found.push(component);
            }
        }
    }
    let mut state = State {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        next: 0,
        found: Vec::new(),
    };
    for v in graph.keys() {
        if !state.index.contains_key(v) {
            visit(&mut state, v);
        }
    }
    state.found
}

fn name(module: &Module) -> String {
    module.join("::")
}

#[test]
fn no_module_imports_one_that_imports_it_back() {
    let tree = Tree::read();
    let mut graph: BTreeMap<Module, BTreeSet<Module>> = BTreeMap::new();
    let mut why: BTreeMap<(Module, Module), Vec<String>> = BTreeMap::new();
    for (from, targets) in tree.edges() {
        for to in targets {
            if let Some((a, b)) = lifted(&from, &to) {
                graph.entry(a.clone()).or_default().insert(b.clone());
                why.entry((a, b))
                    .or_default()
                    .push(format!("{} uses {}", name(&from), name(&to)));
            }
        }
    }
    let found = cycles(&graph);
    let report: Vec<String> = found
        .iter()
        .map(|component| {
            let members: Vec<String> = component.iter().map(name).collect();
            let mut lines = vec![format!("cycle between {}", members.join(", "))];
            for a in component {
                for b in component {
                    if let Some(reasons) = why.get(&(a.clone(), b.clone())) {
                        lines.push(format!("  {}", reasons.join("; ")));
                    }
                }
            }
            lines.join("\n")
        })
        .collect();
    assert!(report.is_empty(), "{}", report.join("\n"));
    // The check sees the house: the engine uses the table modules it commits to.
    let engine_uses = graph
        .get(&vec!["engine".to_owned()])
        .cloned()
        .unwrap_or_default();
    assert!(
        engine_uses.contains(&vec!["inbox".to_owned()]),
        "{engine_uses:?}"
    );
}

#[test]
fn the_check_finds_a_cycle_when_there_is_one() {
    let module = |s: &str| s.split("::").map(str::to_owned).collect::<Module>();
    let mut graph: BTreeMap<Module, BTreeSet<Module>> = BTreeMap::new();
    for (a, b) in [
        ("http", "dashboard"),
        ("dashboard", "http"),
        ("http", "inbox"),
    ] {
        graph.entry(module(a)).or_default().insert(module(b));
    }
    let found = cycles(&graph);
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].len(), 2);
    assert_eq!(
        lifted(&module("engine::plan"), &module("engine::finance::propose")),
        Some((module("engine::plan"), module("engine::finance")))
    );
    assert_eq!(lifted(&module("shop::apply"), &module("shop")), None);
}

/// Files of a module tree, with their source.
fn files_under(tree: &Tree, prefix: &[&str]) -> Vec<(String, String)> {
    tree.modules
        .iter()
        .filter(|(module, _)| module.len() >= prefix.len() && module[..prefix.len()] == *prefix)
        .map(|(_, (path, source))| (path.display().to_string(), source.clone()))
        .collect()
}

#[test]
fn the_front_doors_reach_the_database_only_through_the_merchant_actions() {
    let tree = Tree::read();
    // Tables (and the caches over them) a front door may name types of, but whose
    // functions it may not call: that is what `merchant` is for.
    let tables = [
        "api_keys",
        "audit",
        "bots",
        "contacts",
        "conversations",
        "idempotency",
        "inbox",
        "merchants",
        "outbox",
        "transcript",
        "handoff",
        "shop::orders",
        "shop::catalog",
        "shop::cart",
        "shop::payments",
        "finance::ledger",
        "finance::learning",
        "channels::credentials",
        "llm::calls",
    ];
    let call = regex::Regex::new(&format!(
        r"crate::({})::[a-z_][a-z0-9_]*\s*\(",
        tables.join("|")
    ))
    .unwrap();
    let import = regex::Regex::new(&format!(
        r"use crate::({})::(\{{[^}}]*\b[a-z_][a-z0-9_]*\b[^}}]*\}}|[a-z_][a-z0-9_]*;)",
        tables.join("|")
    ))
    .unwrap();
    let item = regex::Regex::new(r"[{,]\s*(self|[a-z_][a-z0-9_]*)\s*[,}]").unwrap();
    let mut offences = Vec::new();
    let doors = [&["http", "api"][..], &["dashboard"], &["merchant_chat"]];
    for door in doors {
        for (path, source) in files_under(&tree, door) {
            // The console's own sessions table is the door's, not the shop's.
            if path.ends_with("dashboard/session.rs") {
                continue;
            }
            if source.contains("sqlx::query") {
                offences.push(format!("{path}: runs SQL"));
            }
            for found in call.find_iter(&source) {
                offences.push(format!("{path}: calls {}", found.as_str()));
            }
            for found in import.find_iter(&source) {
                let imported = found.as_str();
                let lowercase = item.is_match(imported)
                    || imported
                        .trim_end_matches(';')
                        .rsplit("::")
                        .next()
                        .is_some_and(|last| {
                            last.chars().next().is_some_and(|c| c.is_ascii_lowercase())
                        });
                if lowercase {
                    offences.push(format!("{path}: imports {imported}"));
                }
            }
        }
    }
    assert!(offences.is_empty(), "{}", offences.join("\n"));
}

#[test]
fn the_engine_names_no_profile_and_the_cores_do_no_io() {
    let tree = Tree::read();
    let mut offences = Vec::new();
    for (path, source) in files_under(&tree, &["engine"]) {
        for profile in ["crate::shop", "crate::finance"] {
            if source.contains(profile) {
                offences.push(format!("{path}: names {profile}"));
            }
        }
    }
    for core in [&["shop", "core"][..], &["finance", "core"]] {
        for (path, source) in files_under(&tree, core) {
            for io in [
                "sqlx",
                "axum",
                "reqwest",
                "teloxide",
                "async_openai",
                "tokio",
            ] {
                if source.contains(&format!("{io}::")) {
                    offences.push(format!("{path}: uses {io}"));
                }
            }
        }
    }
    assert!(offences.is_empty(), "{}", offences.join("\n"));
}
