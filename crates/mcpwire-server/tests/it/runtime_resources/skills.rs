//! The skills extension over the wire: the declaration, `skills/list`
//! (paged, whole entries, cache hints), `skills/get`, reads of every file
//! with digests matching the manifest, `resources/directory/read`, dynamic
//! skills, both eras, reloads, and the client's verified load refusing
//! stale or unlisted content.

use base64::Engine as _;
use mcpwire_client::{Client, ClientConfig, ClientError, SkillVerificationError};
use mcpwire_jsonrpc::memory;
use mcpwire_server::Server;
use mcpwire_server::skills::SkillCatalog;
use mcpwire_types::skills::digest_of;
use mcpwire_types::{ClientCapabilities, Implementation};
use serde_json::{Value, json};

use super::support::{RawPeer, serve, stateless_meta, with_meta, within};

const PNG: &[u8] = &[0x89, b'P', b'N', b'G', 0x0d, 0x0a, 0x1a, 0x0a, 0xff, 0x00];

fn skill_md(name: &str, description: &str) -> String {
    format!("---\nname: {name}\ndescription: {description}\nlicense: MIT\n---\n\n# {name}\n")
}

fn catalog() -> SkillCatalog {
    let frontmatter = json!({"name": "daily", "description": "Today's report"});
    SkillCatalog::new()
        .with_files([
            (
                "pdf/SKILL.md",
                skill_md("pdf", "Work with PDFs").into_bytes(),
            ),
            ("pdf/templates/a.md", b"template a".to_vec()),
            ("pdf/templates/deep/b.md", b"template b".to_vec()),
            ("pdf/assets/logo.png", PNG.to_vec()),
            (
                "acme/refunds/SKILL.md",
                skill_md("refunds", "Refund orders").into_bytes(),
            ),
        ])
        .unwrap()
        .with_dynamic(
            "reports/daily",
            frontmatter.as_object().cloned().unwrap(),
            || async {
                Ok(vec![
                    (
                        "SKILL.md".to_owned(),
                        b"---\nname: daily\ndescription: Today's report\n---\nRead data/now.md\n"
                            .to_vec(),
                    ),
                    ("data/now.md".to_owned(), b"generated".to_vec()),
                ])
            },
        )
        .unwrap()
}

fn skills_server(page_size: usize) -> Server {
    Server::builder("skills", "1.0.0")
        .page_size(page_size)
        .skills(catalog())
        .build()
        .unwrap()
}

/// Params of a stateless request from a client that does not declare the
/// extension (it need not).
fn stateless(params: Value) -> Value {
    with_meta(params, &stateless_meta(json!({})))
}

fn peer(server: &Server) -> RawPeer {
    serve(server).0
}

#[tokio::test]
async fn the_server_declares_the_extension_with_directory_reads_and_resources() {
    let server = skills_server(50);
    let mut peer = peer(&server);
    let discover = peer
        .result(1, "server/discover", stateless(json!({})))
        .await;
    let capabilities = &discover["capabilities"];
    assert_eq!(
        capabilities["extensions"]["io.modelcontextprotocol/skills"],
        json!({"directoryRead": true})
    );
    assert!(capabilities["resources"].is_object(), "{capabilities}");
}

#[tokio::test]
async fn skills_list_pages_whole_entries_with_cache_hints_and_manifests() {
    let server = skills_server(2);
    let mut peer = peer(&server);
    let mut uris = Vec::new();
    let mut cursor: Option<Value> = None;
    for id in 1..10 {
        let mut params = json!({});
        if let Some(cursor) = &cursor {
            params["cursor"] = cursor.clone();
        }
        let page = peer.result(id, "skills/list", stateless(params)).await;
        assert_eq!(page["resultType"], "complete", "{page}");
        assert_eq!(page["cacheScope"], "public", "{page}");
        assert!(page["ttlMs"].is_u64(), "{page}");
        for skill in page["skills"].as_array().unwrap() {
            uris.push(skill["uri"].as_str().unwrap().to_owned());
        }
        cursor = page.get("nextCursor").cloned();
        if cursor.is_none() {
            break;
        }
    }
    assert_eq!(
        uris,
        [
            "skill://acme/refunds/SKILL.md",
            "skill://pdf/SKILL.md",
            "skill://reports/daily/SKILL.md"
        ]
    );
    let page = peer.result(20, "skills/list", stateless(json!({}))).await;
    let pdf = &page["skills"][1];
    assert_eq!(
        pdf["frontmatter"],
        json!({"name": "pdf", "description": "Work with PDFs", "license": "MIT"})
    );
    let files = pdf["resources"].as_array().unwrap();
    assert_eq!(files.len(), 4);
    let logo = files
        .iter()
        .find(|f| f["uri"] == "skill://pdf/assets/logo.png")
        .unwrap();
    assert_eq!(logo["digest"], digest_of(PNG));
    assert_eq!(logo["size"], PNG.len());
}

#[tokio::test]
async fn skills_get_answers_served_skills_and_refuses_others_with_invalid_params() {
    let server = skills_server(50);
    let mut peer = peer(&server);
    let got = peer
        .result(
            1,
            "skills/get",
            stateless(json!({"uri": "skill://reports/daily/SKILL.md"})),
        )
        .await;
    assert_eq!(got["skill"]["resources"], "dynamic");
    assert!(got.get("nextCursor").is_none());
    assert!(
        got["ttlMs"].is_u64() && got["cacheScope"].is_string(),
        "{got}"
    );
    let error = peer
        .error(
            2,
            "skills/get",
            stateless(json!({"uri": "skill://nope/SKILL.md"})),
        )
        .await;
    assert_eq!(error["code"], -32602, "{error}");
}

#[tokio::test]
async fn every_file_reads_back_as_the_bytes_its_digest_covers() {
    let server = skills_server(50);
    let mut peer = peer(&server);
    let listed = peer.result(1, "skills/list", stateless(json!({}))).await;
    let mut id = 10;
    for skill in listed["skills"].as_array().unwrap() {
        let Some(files) = skill["resources"].as_array() else {
            continue;
        };
        for file in files {
            id += 1;
            let uri = file["uri"].as_str().unwrap();
            let read = peer
                .result(id, "resources/read", stateless(json!({"uri": uri})))
                .await;
            let contents = &read["contents"][0];
            let bytes = match contents.get("blob") {
                Some(blob) => base64::engine::general_purpose::STANDARD
                    .decode(blob.as_str().unwrap())
                    .unwrap(),
                None => contents["text"].as_str().unwrap().as_bytes().to_vec(),
            };
            assert_eq!(digest_of(&bytes), file["digest"], "{uri}");
            if uri.ends_with("/SKILL.md") {
                assert_eq!(contents["mimeType"], "text/markdown");
            }
            if uri.ends_with(".png") {
                assert_eq!(contents["mimeType"], "image/png");
                assert!(contents.get("blob").is_some(), "binary as blob");
            }
        }
    }
    // A dynamic skill's files are made on read.
    let read = peer
        .result(
            99,
            "resources/read",
            stateless(json!({"uri": "skill://reports/daily/data/now.md"})),
        )
        .await;
    assert_eq!(read["contents"][0]["text"], "generated");
}

#[tokio::test]
async fn resources_list_names_each_skill_md_from_its_frontmatter() {
    let server = skills_server(50);
    let mut peer = peer(&server);
    let listed = peer.result(1, "resources/list", stateless(json!({}))).await;
    let pdf = listed["resources"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["uri"] == "skill://pdf/SKILL.md")
        .unwrap()
        .clone();
    assert_eq!(pdf["name"], "pdf");
    assert_eq!(pdf["description"], "Work with PDFs");
    assert_eq!(pdf["mimeType"], "text/markdown");
}

#[tokio::test]
async fn directory_reads_list_direct_children_page_by_page_and_refuse_files() {
    let server = skills_server(1);
    let mut peer = peer(&server);
    let mut children = Vec::new();
    let mut cursor: Option<Value> = None;
    for id in 1..10 {
        let mut params = json!({"uri": "skill://pdf/templates"});
        if let Some(cursor) = &cursor {
            params["cursor"] = cursor.clone();
        }
        let page = peer
            .result(id, "resources/directory/read", stateless(params))
            .await;
        for child in page["resources"].as_array().unwrap() {
            children.push((child["uri"].clone(), child["mimeType"].clone()));
        }
        cursor = page.get("nextCursor").cloned();
        if cursor.is_none() {
            break;
        }
    }
    assert_eq!(
        children,
        [
            (json!("skill://pdf/templates/a.md"), json!("text/markdown")),
            (
                json!("skill://pdf/templates/deep"),
                json!("inode/directory")
            ),
        ]
    );
    for uri in ["skill://pdf/SKILL.md", "skill://nope"] {
        let error = peer
            .error(
                20,
                "resources/directory/read",
                stateless(json!({"uri": uri})),
            )
            .await;
        assert_eq!(error["code"], -32602, "{uri}: {error}");
    }
    let dynamic = peer
        .result(
            30,
            "resources/directory/read",
            stateless(json!({"uri": "skill://reports/daily"})),
        )
        .await;
    assert_eq!(
        dynamic["resources"][0]["uri"],
        "skill://reports/daily/SKILL.md"
    );
    assert!(
        dynamic["nextCursor"].is_string(),
        "two children, one per page: {dynamic}"
    );
}

#[tokio::test]
async fn handshake_revisions_have_no_extensions_so_skills_are_not_offered_there() {
    // `extensions` entered the capabilities in 2026-07-28; 2025-11-25's
    // schema has no such member, so a session of it sees no skills.
    let server = skills_server(50);
    let mut peer = peer(&server);
    let init = peer.initialize("2025-11-25", json!({})).await;
    assert!(init["capabilities"].get("extensions").is_none(), "{init}");
    let error = peer.error(1, "skills/list", json!({})).await;
    assert_eq!(error["code"], -32601, "{error}");
}

async fn client_of(server: &Server) -> Client {
    let (client_end, server_end) = memory::pair(256);
    let server = server.clone();
    tokio::spawn(async move { server.serve(server_end).await });
    let config = mcpwire_client::with_skills_extension(ClientConfig::new(
        Implementation::new("host", "1"),
        ClientCapabilities::default(),
    ));
    within("connect", Client::connect(client_end, config))
        .await
        .unwrap()
}

/// A tree on disk the test can change, removed on drop.
struct Tree(std::path::PathBuf);

impl Tree {
    fn new(test: &str) -> Self {
        let dir =
            std::env::temp_dir().join(format!("mcpwire-skills-rt-{}-{test}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        Self(dir)
    }

    fn write(&self, path: &str, text: &str) {
        let path = self.0.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
}

impl Drop for Tree {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[tokio::test]
async fn a_verified_load_reads_skill_md_then_only_listed_files() {
    let server = skills_server(50);
    let client = client_of(&server).await;
    assert!(client.supports_skills() && client.supports_skill_directories());
    let skills = client.list_skills().await.unwrap();
    let pdf = skills.iter().find(|s| s.name() == Some("pdf")).unwrap();
    let loaded = client.load_skill(pdf).await.unwrap();
    assert!(loaded.text().starts_with("---\nname: pdf"));
    let logo = loaded.read_file(&client, "assets/logo.png").await.unwrap();
    assert_eq!(logo, PNG);
    let unlisted = loaded
        .read_file(&client, "assets/other.png")
        .await
        .unwrap_err();
    let ClientError::SkillVerification(error) = unlisted else {
        panic!("expected a verification error, got {unlisted:?}");
    };
    assert!(
        matches!(*error, SkillVerificationError::Unlisted { .. }),
        "{error}"
    );
    let children = client.read_directory("skill://pdf").await.unwrap();
    assert_eq!(children.len(), 3, "{children:?}");
    let fresh = client.get_skill(pdf.uri.clone()).await.unwrap();
    assert_eq!(&fresh, pdf);
}

#[tokio::test]
async fn a_stale_entry_fails_verification_and_a_reload_tells_sessions() {
    let tree = Tree::new("reload");
    tree.write("notes/SKILL.md", &skill_md("notes", "Take notes"));
    tree.write("notes/ref.md", "first");
    let server = Server::builder("reload", "1")
        .skills(SkillCatalog::from_dir(&tree.0).unwrap())
        .build()
        .unwrap();
    let client = client_of(&server).await;
    // A handshake session hears of changes as they happen (the stateless
    // client would through subscriptions/listen).
    let mut session = peer(&server);
    session.initialize("2025-11-25", json!({})).await;
    let held = client.list_skills().await.unwrap().remove(0);
    let loaded = client.load_skill(&held).await.unwrap();

    // Same size, other bytes: the digest catches it.
    tree.write("notes/ref.md", "fresh");
    assert!(server.reload_skills().unwrap());
    let notice = within("list_changed", session.recv()).await;
    assert_eq!(notice["method"], "notifications/resources/list_changed");
    let error = loaded.read_file(&client, "ref.md").await.unwrap_err();
    let ClientError::SkillVerification(error) = error else {
        panic!("expected a verification error, got {error:?}");
    };
    assert!(
        matches!(*error, SkillVerificationError::DigestMismatch { .. }),
        "{error}"
    );
    assert!(error.to_string().contains("skills/get"));

    // Longer: the size catches it first.
    tree.write("notes/ref.md", "fresher by far");
    server.reload_skills().unwrap();
    let error = loaded.read_file(&client, "ref.md").await.unwrap_err();
    assert!(
        matches!(&error, ClientError::SkillVerification(e) if matches!(**e, SkillVerificationError::SizeMismatch { .. })),
        "{error:?}"
    );

    // Another description: the frontmatter comparison catches it.
    tree.write("notes/SKILL.md", &skill_md("notes", "Take notes!"));
    server.reload_skills().unwrap();
    let mut forged = held.clone();
    let current = client.get_skill(held.uri.clone()).await.unwrap();
    // The held entry with the current digests but the old frontmatter, as a
    // tampering intermediary would serve it.
    forged.resources = current.resources.clone();
    let error = client.load_skill(&forged).await.unwrap_err();
    assert!(
        matches!(&error, ClientError::SkillVerification(e) if matches!(&**e, SkillVerificationError::FrontmatterMismatch { field, .. } if field == "description")),
        "{error:?}"
    );
    // Refreshed with skills/get, the skill loads again.
    assert!(client.load_skill(&current).await.is_ok());
    assert!(!server.reload_skills().unwrap(), "nothing changed since");
}
