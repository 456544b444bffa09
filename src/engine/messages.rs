//! What a customer reads from the engine itself, whatever the profile: the one
//! "un momento" of the per-contact limit and the apology for a message given up on.

/// Said once when a customer writes faster than the per-minute limit; the
/// messages over it are kept for the merchant but not answered one by one.
pub const SLOW_DOWN: &str = "Un momento, por favor: me llegaron muchos mensajes seguidos. Los guardé todos; en un minuto te sigo atendiendo, escríbeme de nuevo lo que necesites.";

/// Sent once when a message could not be handled after every retry.
pub const PARKED_APOLOGY: &str = "Lo siento, tuve un problema al procesar tu mensaje. Ya avisé al equipo; puedes intentarlo de nuevo en un momento.";
