//! TEMPORARY drafting aid (deleted before hand-off).
#![allow(clippy::unwrap_used, clippy::print_stdout, missing_docs)]
use std::time::Duration;
use mcpwire_jsonrpc::{Packet, Transport, memory};

fn show(v: &serde_json::Value) -> String {
    let c = serde_json::to_string(v).unwrap();
    if c.len() <= 150 { c } else { serde_json::to_string_pretty(v).unwrap() }
}

#[tokio::main]
async fn main() {
    let path = std::env::args().nth(1).unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    let server = conformance::everything::server().unwrap();
    let (mut client, server_end) = memory::pair(64);
    tokio::spawn(async move { server.serve(server_end).await });
    for line in text.lines() {
        if !line.starts_with('>') { println!("{line}"); continue; }
        let v: serde_json::Value = serde_json::from_str(&line[1..]).unwrap();
        println!("{line}");
        let bytes = serde_json::to_vec(&v).unwrap();
        client.send(Packet::from_slice(&bytes).unwrap()).await.unwrap();
        loop {
            match tokio::time::timeout(Duration::from_millis(700), client.recv()).await {
                Ok(Some(Ok(i))) => {
                    let p = i.into_packet().unwrap();
                    let v: serde_json::Value = serde_json::from_slice(&p.to_vec()).unwrap();
                    println!("< {}", show(&v));
                }
                _ => break,
            }
        }
    }
}
