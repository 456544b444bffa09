#![no_main]
//! Any model output, under either contract: parsing never panics, and what parses
//! holds the contract and turns into typed (or rejectable) actions.
libfuzzer_sys::fuzz_target!(|content: &str| {
    if let Ok(proposal) = tendero::shop::prompt::parse_proposal(content) {
        assert!((1..=5).contains(&proposal.proposed_actions.len()));
        assert!(proposal.response_text.chars().count() <= 500);
        let _ = proposal.actions();
    }
    if let Ok(proposal) = tendero::finance::prompt::parse_finance_proposal(content) {
        assert!((1..=5).contains(&proposal.proposed_actions.len()));
        let _ = proposal.actions();
    }
});
