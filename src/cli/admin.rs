//! `tendero merchant …` and `tendero bot …`: creating merchants, keys and bots
//! from a shell, through the same merchant actions as the API.

use anyhow::Context;

use super::{BotCommand, MerchantCommand};

pub async fn merchant_command(pool: &sqlx::PgPool, command: MerchantCommand) -> anyhow::Result<()> {
    match command {
        MerchantCommand::Add { slug, name } => {
            let id = crate::merchants::create(pool, &slug, &name).await.context(
                "could not create the merchant (slugs are lowercase letters, digits and dashes)",
            )?;
            eprintln!("merchant `{slug}` is {id}");
        }
        MerchantCommand::CreateKey { merchant: slug } => {
            let id = crate::merchants::by_slug(pool, &slug)
                .await?
                .with_context(|| format!("no merchant `{slug}`; create it with `tendero merchant add {slug} --name ...`"))?;
            let key = crate::api_keys::create(pool, id).await?;
            println!("{key}");
        }
    }
    Ok(())
}

pub async fn bot_command(pool: &sqlx::PgPool, command: BotCommand) -> anyhow::Result<()> {
    use crate::channels::credentials::{TelegramSetup, WhatsAppSetup};
    let BotCommand::Add {
        slug,
        merchant: merchant_slug,
        name,
        currency,
        profile,
        timezone,
        telegram_token,
        telegram_secret_token,
        whatsapp_phone_number_id,
        whatsapp_access_token,
        whatsapp_app_secret,
        whatsapp_verify_token,
    } = command;
    let merchant_id = crate::merchants::by_slug(pool, &merchant_slug)
        .await?
        .with_context(|| {
            format!("no merchant `{merchant_slug}`; create it with `tendero merchant add`")
        })?;
    let telegram = match (telegram_token, telegram_secret_token) {
        (Some(token), Some(secret_token)) => Some(TelegramSetup {
            token,
            secret_token,
        }),
        (None, None) => None,
        _ => anyhow::bail!("Telegram needs both --telegram-token and --telegram-secret-token"),
    };
    let whatsapp = match (
        whatsapp_phone_number_id,
        whatsapp_access_token,
        whatsapp_app_secret,
        whatsapp_verify_token,
    ) {
        (Some(phone_number_id), Some(access_token), Some(app_secret), Some(verify_token)) => {
            Some(WhatsAppSetup {
                phone_number_id,
                access_token,
                app_secret,
                verify_token,
            })
        }
        (None, None, None, None) => None,
        _ => anyhow::bail!(
            "WhatsApp needs a phone number id, access token, app secret and verify token"
        ),
    };
    let profile = match profile.as_str() {
        "shop" => crate::bots::ProfileKind::Shop,
        "finance" => crate::bots::ProfileKind::Finance,
        other => anyhow::bail!("--profile must be `shop` or `finance`, not `{other}`"),
    };
    let new = crate::merchant::bots::NewBot {
        slug: slug.clone(),
        name,
        currency,
        profile: Some(profile),
        timezone: Some(timezone),
        payment_instructions: None,
        telegram,
        whatsapp,
    };
    crate::merchant::bots::create(pool, merchant_id, &new).await?;
    eprintln!(
        "bot `{slug}` created; webhooks: /webhooks/telegram/{slug}, /webhooks/whatsapp/{slug}, web chat: /webchat/{slug}/messages"
    );
    Ok(())
}
