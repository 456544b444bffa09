#![no_main]
//! Any model output: parsing never panics, and what parses holds the contract.
libfuzzer_sys::fuzz_target!(|content: &str| {
    if let Ok(proposal) = tendero::agent::llm::parse_proposal(content) {
        assert!((1..=5).contains(&proposal.proposed_actions.len()));
        assert!(proposal.response_text.chars().count() <= 500);
    }
});
