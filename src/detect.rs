//! What the backend sees in any customer message before a profile's rules or a
//! proposer read it: a greeting, a request for a person, payment words or an
//! image. The proposer's opinion is never consulted here; each profile turns these
//! into its own events.

use crate::text::{contains_phrase, normalize, tokens};

/// What arrived, as far as detection cares.
#[derive(Debug, Clone, Copy)]
pub struct Inbound<'a> {
    pub text: &'a str,
    pub has_image: bool,
}

/// Words that open a greeting (shared by every profile's rules).
pub const GREETINGS: &[&str] = &[
    "hola",
    "holi",
    "holis",
    "ola",
    "buenas",
    "wenas",
    "wena",
    "guenas",
    "que onda",
    "ke onda",
    "k onda",
    "q onda",
    "quiubo",
    "quihubo",
    "que hubo",
    "alo",
    "buenos dias",
    "buen dia",
    "buenas tardes",
    "buenas noches",
    "saludos",
    "que tal",
    "hey",
    "hello",
    "hi",
];

const ESCALATION: &[&str] = &[
    "hablar con alguien",
    "hablar con una persona",
    "hablar con un humano",
    "hablar con un asesor",
    "hablar con una asesora",
    "hablar con un agente",
    "hablar con el dueno",
    "hablar con la duena",
    "hablar con el encargado",
    "hablar con la encargada",
    "hablar con el vendedor",
    "hablar con la vendedora",
    "hablar con soporte",
    "una persona real",
    "un humano",
    "atencion humana",
    "atencion al cliente",
    "quiero un asesor",
    "pasame con alguien",
    "comunicame con alguien",
];

const PAYMENT: &[&str] = &[
    "ya pague",
    // «cancelar» a bill is paying it (Bolivia, Peru).
    "ya cancele",
    "ya te cancele",
    "ya le cancele",
    "ya les cancele",
    "ya cancelamos",
    "ya le pague",
    "ya te pague",
    "ya hice el pago",
    "ya realice el pago",
    "pago realizado",
    "ya transferi",
    "ya deposite",
    "ya te deposite",
    "te envie el pago",
    "envie el comprobante",
    "reenvio el comprobante",
    "aqui esta el comprobante",
    "ahi esta el comprobante",
    "ahi va el comprobante",
    "este es el comprobante",
    "adjunto el comprobante",
    "adjunto comprobante",
    "te mande el comprobante",
    "ya mande el comprobante",
    "te pase el comprobante",
    "transferencia realizada",
    "ya esta pagado",
    "ya pagado",
    "listo pagado",
];

/// What one inbound message shows.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Detected {
    /// The message opens with a greeting.
    pub greeting: bool,
    /// An image, or words saying a payment was made.
    pub payment: bool,
    /// The customer asks for a person.
    pub escalation: bool,
}

pub fn detect(inbound: Inbound<'_>) -> Detected {
    let text = normalize(inbound.text);
    // («¿puedo cancelar aunque ya pagué?» asks; «ya pagué, ¿me dan factura?»
    // tells the payment before asking.)
    let told = normalize(&statements(inbound.text));
    Detected {
        greeting: is_greeting(&text),
        // («pagado» alone, the way a busy customer reports it.)
        payment: inbound.has_image
            || PAYMENT.iter().any(|p| contains_phrase(&told, p))
            || (matches!(text.trim(), "pagado" | "pagadito") && !inbound.text.contains('?'))
            || reports_a_payment(&text, inbound.text),
        escalation: ESCALATION.iter().any(|p| contains_phrase(&text, p))
            || asks_to_be_put_through(&text),
    }
}

/// The message without the questions that plainly ask: each «?» closes one
/// that opens at its «¿» or, without one, at the start of its sentence or
/// clause when that starts with a word that asks («puedo…», «cómo…»). A «?»
/// after a told payment («ya pagué me confirmas?») leaves the payment told.
fn statements(raw: &str) -> String {
    const ASKING: &[&str] = &[
        "puedo", "puede", "pueden", "podria", "podrian", "se", "como", "cuando", "cuanto",
        "cuanta", "que", "cual", "donde", "si", "hay", "tienen", "aceptan", "hacen", "es", "esta",
        "y", "me", "le", "a", "por",
    ];
    let mut kept = String::new();
    let mut rest = raw;
    while let Some(end) = rest.find('?') {
        let asked = &rest[..end];
        let start = match asked.rfind('¿') {
            Some(opened) => opened,
            None => {
                let clause = asked.rfind(['.', ',', ';', '!', '\n']).map_or(0, |k| k + 1);
                let first = normalize(&asked[clause..]);
                let asks = first
                    .split(' ')
                    .find(|w| !w.is_empty())
                    .is_some_and(|w| ASKING.contains(&w));
                if asks { clause } else { asked.len() }
            }
        };
        kept.push_str(&asked[..start]);
        kept.push(' ');
        rest = &rest[end + 1..];
    }
    kept.push_str(rest);
    kept
}

/// «Pagado ✅ ref 55120933», «comprobante enviado», «ya hice la transferencia»,
/// «paid by QR»: a payment told done — a verb of paying in the past, or a word
/// of the payment with a mark that it was done or sent (a reference number, ✅,
/// «enviado», «hice»…). Never a question, nor a payment denied, promised or
/// waited for («todavía no he pagado», «te aviso cuando pague», «ya te mando
/// el comprobante»).
fn reports_a_payment(text: &str, raw: &str) -> bool {
    // Past beyond doubt; «pague», «pagamos», «transferimos», «depositamos»
    // are also «cuando pague», «pagamos al recibir»: past only after «ya»,
    // «te», «le» or «les».
    const PAID: &[&str] = &[
        "pagado",
        "pagada",
        "pagadito",
        "transferi",
        "deposite",
        "paid",
    ];
    const PAID_IF_TOLD: &[&str] = &[
        "pague",
        "pagamos",
        "transferimos",
        "depositamos",
        // «já paguei»: a Brazilian customer's.
        "paguei",
    ];
    const PAYMENT: &[&str] = &[
        "comprobante",
        "comprovante",
        "captura",
        "transferencia",
        "pago",
        "deposito",
        "qr",
        "voucher",
    ];
    // («envíe el QR», «me mande el QR» ask: «envié», «mandé» only after
    // «ya», «te», «le».)
    const DONE: &[&str] = &[
        "enviado",
        "enviada",
        "mandado",
        "hice",
        "hecho",
        "hecha",
        "realizado",
        "realizada",
        "sent",
        "done",
    ];
    const DONE_IF_TOLD: &[&str] = &["envie", "mande"];
    const NOT_YET: &[&str] = &[
        "no", "todavia", "aun", "falta", "cuando", "si", "apenas", "voy", "vamos", "va", "van",
        "puedo", "debo", "tengo", "not", "haven", "havent", "didn", "didnt", "que",
    ];
    if raw.contains('?') || raw.contains('¿') {
        return false;
    }
    let words = tokens(text);
    let told_at = |k: usize| k > 0 && matches!(words[k - 1], "ya" | "ja" | "te" | "le" | "les");
    // A number of five digits or more is a reference, unless it is a phone,
    // a NIT or an address («al 71234567», «NIT 4567821»).
    let reference = words.iter().enumerate().any(|(k, w)| {
        w.len() >= 5
            && w.chars().all(|c| c.is_ascii_digit())
            && !(k > 0
                && matches!(
                    words[k - 1],
                    "nit" | "ci" | "numero" | "cel" | "celular" | "al" | "whatsapp" | "telefono"
                ))
    });
    let ticked = raw.contains('✅') || raw.contains('✔');
    let paid_at = words.iter().enumerate().position(|(k, w)| {
        PAID.contains(w)
            || (PAID_IF_TOLD.contains(w)
                    // («te transferimos en la tarde»: «-mos» is past only
                    // after «ya».)
                    && if w.ends_with("mos") {
                        words[k.saturating_sub(2)..k].contains(&"ya")
                    } else {
                        told_at(k)
                    })
    });
    let done = |k: usize, w: &str| DONE.contains(&w) || (DONE_IF_TOLD.contains(&w) && told_at(k));
    let told = match paid_at {
        Some(_) => true,
        None => {
            words.iter().any(|w| PAYMENT.contains(w))
                && (reference || ticked || words.iter().enumerate().any(|(k, w)| done(k, w)))
        }
    };
    // What comes before the first word of paying: «todavía no he pagado»,
    // «cuando pague te aviso», «voy a pagar».
    let first = paid_at
        .or_else(|| {
            words
                .iter()
                .enumerate()
                .position(|(k, w)| PAYMENT.contains(w) || done(k, w))
        })
        .unwrap_or(0);
    let waited = words[first.saturating_sub(3)..first]
        .iter()
        .any(|w| NOT_YET.contains(w));
    told && !waited
}

/// «¿me pasan con alguien de ustedes?», «comuníquenme con el encargado», «que
/// me atienda una persona»: a verb of putting through or attending, then who.
fn asks_to_be_put_through(text: &str) -> bool {
    const WHO: &[&str] = &[
        "alguien",
        "una persona",
        "un humano",
        "un asesor",
        "una asesora",
        "un agente",
        "el dueno",
        "la duena",
        "el encargado",
        "la encargada",
        "el gerente",
        "la gerente",
        "un encargado",
        "una encargada",
        "soporte",
    ];
    let words: Vec<&str> = text.split(' ').collect();
    let connects = |w: &str| {
        [
            "pas",
            "comuni",
            "conect",
            "transfier",
            "contact",
            "atiend",
            "coordin",
        ]
        .iter()
        .any(|stem| w.starts_with(stem))
            && !w.starts_with("paso")
            && (!w.starts_with("pase") || w == "paseme")
    };
    // «prefiero conversar con una persona», «¿puedo hablar con el gerente?»:
    // the verb of talking, asked for (not «estuve hablando con alguien»).
    let talks = |w: &str| matches!(w, "hablar" | "ablar" | "conversar" | "chatear");
    // «can I talk to a real person?», «I need to speak with someone».
    // (Not «let me talk to my manager», «no need to talk to a person», «did
    // you talk to someone…».)
    let english = words.iter().enumerate().any(|(i, w)| {
        matches!(*w, "talk" | "speak" | "chat")
            && matches!(words.get(i + 1), Some(&("to" | "with")))
            && !words[i + 2..words.len().min(i + 5)].contains(&"my")
            && !words[i.saturating_sub(3)..i]
                .iter()
                .any(|b| matches!(*b, "no" | "not" | "dont" | "don" | "did" | "didn" | "never"))
            && words[i + 2..words.len().min(i + 5)].iter().any(|who| {
                matches!(
                    *who,
                    "person"
                        | "human"
                        | "someone"
                        | "somebody"
                        | "agent"
                        | "owner"
                        | "manager"
                        | "staff"
                        | "people"
                )
            })
    });
    if english {
        return true;
    }
    words.iter().enumerate().any(|(i, w)| {
        (connects(w) || talks(w)) && {
            let rest = words[i + 1..words.len().min(i + 5)].join(" ");
            WHO.iter().any(|who| {
                contains_phrase(&rest, &format!("con {who}"))
                    // «pásame a una persona», «transfiéreme a un asesor».
                    || connects(w)
                        && (w.ends_with("me") || w.ends_with("nos"))
                        && !rest.chars().any(|c| c.is_ascii_digit())
                        && contains_phrase(&rest, &format!("a {who}"))
                    || contains_phrase(&rest, who) && w.starts_with("atiend")
            })
        }
    })
}

fn is_greeting(text: &str) -> bool {
    // «holaa», «buenaaas»: a stretched greeting is still one.
    let unstretched: Vec<String> = tokens(text).iter().map(|w| unstretch(w)).collect();
    let words: Vec<&str> = unstretched.iter().map(String::as_str).collect();
    // A greeting opens the message; "hola" inside an order line still counts.
    GREETINGS.iter().any(|g| {
        let g_words: Vec<&str> = g.split(' ').collect();
        words.len() >= g_words.len() && words[..g_words.len()] == g_words[..]
    }) || greeting_mistyped(&words)
}

/// «Hila buenas tarses»: a short message of greeting words, each typed at
/// most one letter off, with one of them typed right.
fn greeting_mistyped(words: &[&str]) -> bool {
    const WORDS: &[&str] = &[
        "hola", "buenas", "buenos", "buen", "tardes", "dias", "dia", "noches",
    ];
    (2..=4).contains(&words.len())
        && words.iter().any(|w| WORDS.contains(w))
        && words.iter().all(|w| {
            WORDS
                .iter()
                .any(|g| w.len() >= 4 && *w != "bien" && strsim::levenshtein(w, g) <= 1 || w == g)
        })
}

/// A word with its stretched letters shortened: «holaaa» → «hola», «buenaass»
/// → «buenas» (a double «ll» or «rr» stays).
pub fn unstretch(word: &str) -> String {
    let mut out = String::with_capacity(word.len());
    let mut last = None;
    let mut run = 0;
    for c in word.chars() {
        if Some(c) == last {
            run += 1;
        } else {
            run = 1;
            last = Some(c);
        }
        if run == 1 || (run == 2 && matches!(c, 'l' | 'r' | 'c' | 'e' | 'o')) {
            out.push(c);
        }
    }
    // «holaa» keeps one «a»; «buenoo» one «o»: a doubled last vowel is a stretch.
    let chars: Vec<char> = out.chars().collect();
    if chars.len() >= 3 && chars[chars.len() - 1] == chars[chars.len() - 2] {
        out.pop();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_person_asked_for_in_english_or_mistyped_hands_over() {
        assert!(text("I need to talk with a person please, my bank app is not working").escalation);
        assert!(text("can I talk to a real person?").escalation);
        assert!(text("qiero ablar con alguien YA").escalation);
        assert!(!text("I will talk to my wife and come back").escalation);
        assert!(!text("let me talk to my manager and I'll come back").escalation);
        assert!(!text("no need to talk to a person, just add 2 lattes").escalation);
        assert!(!text("did you talk to someone about my order?").escalation);
    }

    fn text(t: &str) -> Detected {
        detect(Inbound {
            text: t,
            has_image: false,
        })
    }

    #[test]
    fn greetings_escalations_and_payments_are_detected() {
        let greeting = Detected {
            greeting: true,
            ..Detected::default()
        };
        assert_eq!(text("¡Hola! qué tienen"), greeting);
        assert_eq!(text("Buenas tardes"), greeting);
        assert_eq!(text("holaa"), greeting);
        assert_eq!(text("buenaaas"), greeting);
        assert_eq!(unstretch("llevar"), "llevar");
        assert!(text("quiero hablar con una persona").escalation);
        assert!(text("¿me pasan con alguien de ustedes?").escalation);
        assert!(text("mire mejor paseme con una persona de verdad no con maquina").escalation);
        assert!(text("Preferiría coordinar esto con una persona encargada, por favor.").escalation);
        assert!(!text("pase por el local ayer").escalation);
        assert!(text("pasame a una persona por favor").escalation);
        assert!(text("transfiérame a un asesor").escalation);
        assert!(!text("pásame la cuenta para una persona").escalation);
        assert!(!text("le pasé 500 a alguien del trabajo").escalation);
        assert!(!text("se lo pueden pasar a alguien de recepción").escalation);
        assert!(!text("cada quincena transfiero 1500 a una persona que me ayuda").escalation);
        assert!(text("comuníquenme con el encargado por favor").escalation);
        assert!(text("quiero que me atienda una persona").escalation);
        assert!(
            text(
                "Le agradezco, pero prefiero conversar con una persona del local, si fuera posible."
            )
            .escalation
        );
        assert!(text("puedo hablar con el gerente?").escalation);
        assert!(
            !text("estuve hablando con alguien del local y me dijo que hay descuento").escalation
        );
        assert!(!text("paso con alguien a recoger").escalation);
        assert!(!text("me pasas el precio del brownie").escalation);
        assert!(text("Ya pagué, te envié el comprobante").payment);
        // A payment inside a question is asked about; told before one, kept.
        assert!(!text("¿puedo cancelar aunque ya pagué?").payment);
        assert!(text("ya pagué, ¿me pueden dar factura?").payment);
        assert!(text("ya pagué, todavía me dan factura?").payment);
        // Told without commas before the «?», the payment still stands.
        assert!(text("ya pagué me confirmas?").payment);
        assert!(text("Ya hice el pago me avisas cuando salga?").payment);
        assert!(text("pronto, já paguei com o QR pelo app do banco, aí vai o comprovante").payment);
        // Greeting words each typed one letter off.
        assert_eq!(text("Hila buenas tarses"), greeting);
        assert_ne!(text("hila tarses"), greeting);
        assert!(!greeting_mistyped(&["buenas", "bien"]));
        assert!(text("ya pagué, te reenvío el comprobante").payment);
        // «pagado» alone reports it; said of something else, it does not.
        assert!(text("pagado").payment);
        // A payment told done, in any shape: a reference, a tick, «enviado».
        for told in [
            "Pagado ✅ ref 55120933",
            "paid by QR ✅",
            "ya está, comprobante enviado 🙌",
            "listo ya hice la transferencia",
            "Listo pana, ya te mandé la captura de la transferencia",
            "ya pagué por QR, nro de operación 0048812 👍",
            "transferencia hecha, 400 bs",
        ] {
            assert!(text(told).payment, "{told}");
        }
        for not_yet in [
            "cancela el pedido porfa, todavía no he pagado",
            "te aviso cuando pague",
            "voy a pagar con QR",
            "¿está pagado mi pedido?",
            "no tengo qr puedo pagar en efectivo cuando llegue",
            "mañana hago la transferencia",
            "¿me mandan los datos para la transferencia?",
            "aún no pagué, espera",
            "envíe el QR por favor",
            "me mande el QR porfa",
            "pagamos en efectivo al recibir",
            "te transferimos en la tarde",
            "depositamos mañana",
            "en cuanto pague te aviso",
            "antes de que pague cambia el capuchino",
            "I haven't paid yet",
            "mándame el QR al 71234567",
            "mándame el comprobante a nombre de NIT 4567821",
            "ahorita hago el pago, NIT 4567821019 para la factura",
        ] {
            assert!(!text(not_yet).payment, "{not_yet}");
        }
        assert!(text("Pagado!").payment);
        assert!(!text("¿el pedido está pagado?").payment);
        assert!(!text("¿pagado?").payment);
        // The word alone is no payment: «ya te mando el comprobante», «cómo te
        // mando el comprobante?», «se me borró el comprobante».
        for said in [
            "ya te mando el comprobante",
            "cómo te mando el comprobante?",
            "no tengo el comprobante, se me borró",
            "mi esposo va a pagar, te manda él el comprobante",
        ] {
            assert!(!text(said).payment, "{said}");
        }
        assert_eq!(text("quiero 2 maracuyá"), Detected::default());
        let image = detect(Inbound {
            text: "",
            has_image: true,
        });
        assert!(image.payment && !image.greeting && !image.escalation);
    }
}
