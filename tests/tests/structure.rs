//! The code's shape, checked on every test run: no file over 800 lines, no function over 100 lines, and no
//! circle of imports between the files, nor between the folders, of the engine, the client and the relay. A
//! child module using its parent's items is not a circle (that is what a parent is for); test modules
//! (`#[cfg(test)]`) may reach anywhere, but their functions and lines are measured too.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

use syn::visit::{self, Visit};

/// The longest a function may be, from `fn` to its closing brace.
const LIMIT: usize = 100;

/// The longest a file may be, in lines.
const FILE_LIMIT: usize = 800;

/// The crates' sources checked, relative to the workspace.
const SOURCES: [&str; 3] = ["shared/src", "client/src", "server/src"];

/// A module's path inside its crate, `[]` for the crate root.
type ModulePath = Vec<String>;

/// What one file holds, as far as its shape goes.
#[derive(Default)]
struct FileShape {
    /// How many lines the file has.
    lines: usize,
    /// Every function with its first line and its length in lines.
    functions: Vec<(String, usize, usize)>,
    /// The modules its non-test code names through `crate::`, `super::` or `self::`, made absolute.
    named: BTreeSet<ModulePath>,
    /// The modules it declares in files of their own for tests only (`#[cfg(test)] mod tests;`): test code.
    test_files: BTreeSet<ModulePath>,
}

/// Walks one file's syntax tree.
struct Walk {
    /// The file's module, then any inline modules the walk is inside.
    module: ModulePath,
    /// How many `#[cfg(test)]` items the walk is inside.
    in_test: usize,
    shape: FileShape,
}

impl Walk {
    fn function(&mut self, name: &syn::Ident, fn_token: &syn::token::Fn, block: &syn::Block) {
        let first = fn_token.span.start().line;
        let last = block.brace_token.span.close().end().line;
        self.shape.functions.push((name.to_string(), first, last + 1 - first));
    }

    /// Records a path that starts at `crate`, `super` or `self`.
    fn name(&mut self, segments: &[String]) {
        if self.in_test > 0 {
            return;
        }
        let mut absolute = self.module.clone();
        let mut rest = segments;
        match rest.first().map(String::as_str) {
            Some("crate") => {
                absolute.clear();
                rest = &rest[1..];
            }
            Some("super") => {
                while rest.first().map(String::as_str) == Some("super") {
                    absolute.pop();
                    rest = &rest[1..];
                }
            }
            Some("self") => rest = &rest[1..],
            _ => return,
        }
        absolute.extend(rest.iter().cloned());
        self.shape.named.insert(absolute);
    }

    fn test_only(attrs: &[syn::Attribute]) -> bool {
        attrs.iter().any(|attr| {
            attr.path().is_ident("cfg")
                && attr
                    .meta
                    .require_list()
                    .is_ok_and(|list| list.tokens.to_string().split_whitespace().any(|t| t == "test"))
        })
    }

    fn enter(&mut self, attrs: &[syn::Attribute]) -> bool {
        let test = Self::test_only(attrs);
        self.in_test += usize::from(test);
        test
    }

    fn leave(&mut self, test: bool) {
        self.in_test -= usize::from(test);
    }
}

/// Every path a `use` tree names, each as its segments.
fn use_paths(tree: &syn::UseTree, prefix: &mut Vec<String>, out: &mut Vec<Vec<String>>) {
    match tree {
        syn::UseTree::Path(path) => {
            prefix.push(path.ident.to_string());
            use_paths(&path.tree, prefix, out);
            prefix.pop();
        }
        syn::UseTree::Name(name) => out.push([prefix.as_slice(), &[name.ident.to_string()]].concat()),
        syn::UseTree::Rename(rename) => out.push([prefix.as_slice(), &[rename.ident.to_string()]].concat()),
        syn::UseTree::Glob(_) => out.push(prefix.clone()),
        syn::UseTree::Group(group) => group.items.iter().for_each(|item| use_paths(item, prefix, out)),
    }
}

impl<'ast> Visit<'ast> for Walk {
    fn visit_item_fn(&mut self, item: &'ast syn::ItemFn) {
        self.function(&item.sig.ident, &item.sig.fn_token, &item.block);
        let test = self.enter(&item.attrs);
        visit::visit_item_fn(self, item);
        self.leave(test);
    }

    fn visit_impl_item_fn(&mut self, item: &'ast syn::ImplItemFn) {
        self.function(&item.sig.ident, &item.sig.fn_token, &item.block);
        let test = self.enter(&item.attrs);
        visit::visit_impl_item_fn(self, item);
        self.leave(test);
    }

    fn visit_trait_item_fn(&mut self, item: &'ast syn::TraitItemFn) {
        if let Some(block) = &item.default {
            self.function(&item.sig.ident, &item.sig.fn_token, block);
        }
        visit::visit_trait_item_fn(self, item);
    }

    fn visit_item_mod(&mut self, item: &'ast syn::ItemMod) {
        let test = self.enter(&item.attrs);
        self.module.push(item.ident.to_string());
        if self.in_test > 0 && item.content.is_none() {
            self.shape.test_files.insert(self.module.clone());
        }
        visit::visit_item_mod(self, item);
        self.module.pop();
        self.leave(test);
    }

    fn visit_item_impl(&mut self, item: &'ast syn::ItemImpl) {
        let test = self.enter(&item.attrs);
        visit::visit_item_impl(self, item);
        self.leave(test);
    }

    fn visit_item_use(&mut self, item: &'ast syn::ItemUse) {
        let test = self.enter(&item.attrs);
        let mut paths = Vec::new();
        use_paths(&item.tree, &mut Vec::new(), &mut paths);
        for path in paths {
            self.name(&path);
        }
        self.leave(test);
    }

    fn visit_path(&mut self, path: &'ast syn::Path) {
        let segments: Vec<String> = path.segments.iter().map(|segment| segment.ident.to_string()).collect();
        self.name(&segments);
        visit::visit_path(self, path);
    }
}

/// The module a file is, from its path under the crate's source folder.
fn module_of(relative: &Path) -> ModulePath {
    let mut path: ModulePath =
        relative.with_extension("").iter().map(|part| part.to_string_lossy().into_owned()).collect();
    if matches!(path.last().map(String::as_str), Some("mod" | "lib" | "main")) {
        path.pop();
    }
    path
}

fn rust_files(folder: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(folder).expect("a source folder") {
        let path = entry.expect("a folder entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|extension| extension == "rs") {
            out.push(path);
        }
    }
}

fn shape_of(source: &str, module: ModulePath) -> FileShape {
    let file = syn::parse_file(source).expect("the source parses");
    let mut walk =
        Walk { module, in_test: 0, shape: FileShape { lines: source.lines().count(), ..FileShape::default() } };
    walk.visit_file(&file);
    walk.shape
}

/// One crate's files, each by its module (a binary's `main.rs` is left out of the import graph: its `crate` is
/// another crate), with their shapes.
fn crate_shapes(root: &Path) -> BTreeMap<PathBuf, (ModulePath, FileShape)> {
    let mut files = Vec::new();
    rust_files(root, &mut files);
    files
        .into_iter()
        .map(|file| {
            let relative = file.strip_prefix(root).expect("under the root").to_path_buf();
            let source = fs::read_to_string(&file).expect("a readable source");
            let shape = shape_of(&source, module_of(&relative));
            (file, (module_of(&relative), shape))
        })
        .collect()
}

/// The file each file's code names (the longest module prefix that is a file), leaving out the file itself and
/// its ancestors, and test files.
fn imports(files: &BTreeMap<PathBuf, (ModulePath, FileShape)>) -> BTreeMap<PathBuf, BTreeSet<PathBuf>> {
    let test_files: BTreeSet<&ModulePath> = files.values().flat_map(|(_, shape)| &shape.test_files).collect();
    let in_graph = |file: &PathBuf| {
        file.file_name().is_some_and(|name| name != "main.rs")
            && !test_files.iter().any(|test| files[file].0.starts_with(test))
    };
    let by_module: BTreeMap<&ModulePath, &PathBuf> =
        files.iter().filter(|(file, _)| in_graph(file)).map(|(file, (module, _))| (module, file)).collect();
    let mut edges = BTreeMap::new();
    for (file, (module, shape)) in files.iter().filter(|(file, _)| in_graph(file)) {
        let targets: BTreeSet<PathBuf> = shape
            .named
            .iter()
            .filter_map(|named| (0..=named.len()).rev().find_map(|n| by_module.get(&named[..n].to_vec())))
            .filter(|target| {
                let target_module = &files[**target].0;
                !module.starts_with(target_module)
            })
            .map(|target| (*target).clone())
            .collect();
        edges.insert(file.clone(), targets);
    }
    edges
}

/// The modules' import graph lifted to siblings: an edge from file `a/b/c.rs` to `a/d/e.rs` is an edge from
/// the module `a::b` to its sibling `a::d`, the children of the deepest module both are in. A circle there that
/// the file graph does not show runs through a folder: its files use another module whose files use them back.
/// An edge from a module to one of its own descendants is the parent using its child, no edge between siblings.
fn sibling_imports(
    files: &BTreeMap<PathBuf, (ModulePath, FileShape)>,
    edges: &BTreeMap<PathBuf, BTreeSet<PathBuf>>,
) -> BTreeMap<ModulePath, BTreeSet<ModulePath>> {
    let mut lifted: BTreeMap<ModulePath, BTreeSet<ModulePath>> = BTreeMap::new();
    for (file, targets) in edges {
        let from = &files[file].0;
        for target in targets {
            let to = &files[target].0;
            let common = from.iter().zip(to).take_while(|(a, b)| a == b).count();
            if common < from.len() && common < to.len() {
                lifted.entry(from[..=common].to_vec()).or_default().insert(to[..=common].to_vec());
            }
        }
    }
    lifted
}

/// The modules with children (`a/mod.rs` or `a.rs` beside `a/`).
fn folders(files: &BTreeMap<PathBuf, (ModulePath, FileShape)>) -> BTreeSet<ModulePath> {
    files.values().filter_map(|(module, _)| module.split_last().map(|(_, parent)| parent.to_vec())).collect()
}

/// The circles of a graph: its strongly connected components of more than one node (Tarjan's algorithm).
fn circles<N: Ord + Clone>(edges: &BTreeMap<N, BTreeSet<N>>) -> Vec<Vec<N>> {
    struct Tarjan<'a, N: Ord> {
        edges: &'a BTreeMap<N, BTreeSet<N>>,
        index: BTreeMap<&'a N, (usize, usize)>,
        stack: Vec<&'a N>,
        next: usize,
        found: Vec<Vec<N>>,
    }
    impl<'a, N: Ord + Clone> Tarjan<'a, N> {
        fn connect(&mut self, node: &'a N) {
            self.index.insert(node, (self.next, self.next));
            self.next += 1;
            self.stack.push(node);
            for next in self.edges.get(node).into_iter().flatten() {
                if !self.index.contains_key(next) {
                    self.connect(next);
                    let low = self.index[next].1.min(self.index[node].1);
                    self.index.get_mut(node).expect("indexed").1 = low;
                } else if self.stack.contains(&next) {
                    let low = self.index[next].0.min(self.index[node].1);
                    self.index.get_mut(node).expect("indexed").1 = low;
                }
            }
            let (index, low) = self.index[node];
            if index == low {
                let at = self.stack.iter().rposition(|n| *n == node).expect("on the stack");
                let component: Vec<N> = self.stack.drain(at..).cloned().collect();
                if component.len() > 1 {
                    self.found.push(component);
                }
            }
        }
    }
    let mut tarjan = Tarjan { edges, index: BTreeMap::new(), stack: Vec::new(), next: 0, found: Vec::new() };
    for node in edges.keys() {
        if !tarjan.index.contains_key(node) {
            tarjan.connect(node);
        }
    }
    tarjan.found
}

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("the workspace").to_path_buf()
}

/// A file as the workspace names it.
fn shown(file: &Path) -> String {
    file.strip_prefix(workspace()).unwrap_or(file).display().to_string()
}

#[test]
fn no_function_is_over_100_lines() {
    let mut long = Vec::new();
    for source in SOURCES {
        for (file, (_, shape)) in crate_shapes(&workspace().join(source)) {
            for (name, line, lines) in &shape.functions {
                if *lines > LIMIT {
                    long.push(format!("{}:{line} {name}: {lines} lines", shown(&file)));
                }
            }
        }
    }
    assert!(long.is_empty(), "functions over {LIMIT} lines:\n{}", long.join("\n"));
}

#[test]
fn no_files_import_each_other_in_a_circle() {
    let mut found = Vec::new();
    for source in SOURCES {
        let files = crate_shapes(&workspace().join(source));
        let edges = imports(&files);
        assert!(!edges.is_empty(), "{source}: no file names another, so the walk found nothing");
        for circle in circles(&edges) {
            let names: Vec<String> = circle.iter().map(|file| shown(file)).collect();
            found.push(names.join(" ↔ "));
        }
    }
    assert!(found.is_empty(), "files importing each other in a circle:\n{}", found.join("\n"));
}

#[test]
fn no_folders_import_each_other_in_a_circle() {
    let mut found = Vec::new();
    for source in SOURCES {
        let files = crate_shapes(&workspace().join(source));
        let folders = folders(&files);
        for circle in circles(&sibling_imports(&files, &imports(&files))) {
            if circle.iter().any(|module| folders.contains(module)) {
                let names: Vec<String> = circle
                    .iter()
                    .map(|module| {
                        let slash = if folders.contains(module) { "/" } else { "" };
                        format!("{source}/{}{slash}", module.join("/"))
                    })
                    .collect();
                found.push(names.join(" ↔ "));
            }
        }
    }
    assert!(found.is_empty(), "folders importing each other in a circle:\n{}", found.join("\n"));
}

#[test]
fn no_file_is_over_800_lines() {
    let mut long = Vec::new();
    for source in SOURCES {
        for (file, (_, shape)) in crate_shapes(&workspace().join(source)) {
            if shape.lines > FILE_LIMIT {
                long.push(format!("{}: {} lines", shown(&file), shape.lines));
            }
        }
    }
    assert!(long.is_empty(), "files over {FILE_LIMIT} lines:\n{}", long.join("\n"));
}

/// The checks themselves: what they must catch and what they must let through.
#[test]
fn the_checks_catch_long_functions_and_circles() {
    let body = "    let x = 1;\n".repeat(LIMIT - 2);
    let long = shape_of(&format!("fn long() {{\n{body}}}\nfn short() {{}}\n"), vec![]);
    assert_eq!(long.functions, vec![("long".to_string(), 1, LIMIT), ("short".to_string(), LIMIT + 1, 1)]);
    assert_eq!(long.lines, LIMIT + 1);
    let longer = shape_of(&format!("impl A {{\n    fn f() {{\n{body}    let y = 2;\n    }}\n}}\n"), vec![]);
    assert_eq!(longer.functions, vec![("f".to_string(), 2, LIMIT + 1)]);

    let file = |name: &str, module: &[&str], source: &str| {
        let module: ModulePath = module.iter().map(|s| s.to_string()).collect();
        (PathBuf::from(name), (module.clone(), shape_of(source, module)))
    };
    let files: BTreeMap<_, _> = [
        file("lib.rs", &[], "mod a; mod b; fn f() { a::g(); }"),
        file("a/mod.rs", &["a"], "use self::child::X; use crate::b::Y;"),
        file("a/child.rs", &["a", "child"], "use super::Z; fn g() -> crate::lib_item::Q { todo() }"),
        file("b.rs", &["b"], "fn g() { super::a::child::h(); }\n#[cfg(test)]\nmod tests { use crate::c::W; }"),
        file("c.rs", &["c"], "use crate::b; #[cfg(test)] use crate::a::X; #[cfg(test)] mod tests;"),
        file("c/tests.rs", &["c", "tests"], "use crate::a::X;"),
    ]
    .into_iter()
    .collect();
    let edges = imports(&files);
    let set = |names: &[&str]| names.iter().map(PathBuf::from).collect::<BTreeSet<_>>();
    // A child naming its parent (or the root) is no edge; naming a child is; test code is left out.
    assert_eq!(edges[Path::new("a/child.rs")], set(&[]));
    assert_eq!(edges[Path::new("a/mod.rs")], set(&["a/child.rs", "b.rs"]));
    assert_eq!(edges[Path::new("b.rs")], set(&["a/child.rs"]));
    assert_eq!(edges[Path::new("c.rs")], set(&["b.rs"]));
    assert!(!edges.contains_key(Path::new("c/tests.rs")));
    assert!(circles(&edges).is_empty());

    let mut circled = edges.clone();
    circled.get_mut(Path::new("a/child.rs")).expect("a file").insert(PathBuf::from("c.rs"));
    let found = circles(&circled);
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].iter().cloned().collect::<BTreeSet<_>>(), set(&["a/child.rs", "b.rs", "c.rs"]));

    // Lifted to siblings: `a/mod.rs` naming `b.rs` is `a` → `b`, `b.rs` naming `a/child.rs` is `b` → `a`, a circle
    // between the folder `a` and the file `b` that no two files close.
    let modules = |names: &[&[&str]]| -> BTreeSet<ModulePath> {
        names.iter().map(|name| name.iter().map(|s| s.to_string()).collect()).collect()
    };
    assert_eq!(folders(&files), modules(&[&[], &["a"], &["c"]]));
    let lifted = sibling_imports(&files, &edges);
    assert_eq!(lifted.keys().cloned().collect::<BTreeSet<_>>(), modules(&[&["a"], &["b"], &["c"]]));
    assert_eq!(lifted[&vec!["a".to_string()]], modules(&[&["b"]]));
    assert_eq!(lifted[&vec!["b".to_string()]], modules(&[&["a"]]));
    let found = circles(&lifted);
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].iter().cloned().collect::<BTreeSet<_>>(), modules(&[&["a"], &["b"]]));
}
