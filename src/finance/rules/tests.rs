//! Everyday Mexican Spanish, read by the finance rules.

use chrono::NaiveDate;

use super::*;
use crate::finance::core::draft::Draft;
use crate::finance::core::tools::DataQuality;
use crate::finance::core::{FinanceAction, FinanceActionType};
use crate::llm::CallContext;
use crate::proposal::Param;

fn today() -> NaiveDate {
    // A Monday.
    NaiveDate::from_ymd_opt(2026, 11, 23).unwrap()
}

fn input(state: FinanceState, draft: Option<Draft>, message: &str) -> FinanceInput {
    FinanceInput {
        descriptions: Vec::new(),
        last_query: None,
        current_state: state,
        draft,
        customer_message: message.into(),
        recent_history: vec![],
        today: today(),
        currency: "MXN".into(),
        data_quality: DataQuality::Excellent,
        debts: vec![],
        owed_to_me: vec![],
        corrections: vec![],
        context: CallContext::default(),
    }
}

fn idle(message: &str) -> Vec<FinanceAction> {
    propose(&input(FinanceState::Idle, None, message)).actions()
}

fn only(message: &str) -> FinanceAction {
    let actions = idle(message);
    assert_eq!(actions.len(), 1, "{message}: {actions:?}");
    actions.into_iter().next().unwrap()
}

fn kind(action: &FinanceAction) -> &str {
    action.kind.name()
}

fn category(action: &FinanceAction) -> Option<&'static str> {
    action.params.category.given().map(|c| c.key)
}

fn tools(action: &FinanceAction) -> Vec<&'static str> {
    action
        .params
        .tools
        .iter()
        .filter_map(|t| t.given().map(|t| t.name.as_str()))
        .collect()
}

#[test]
fn logs_read_amount_category_date_and_concept() {
    let a = only("gasté 250 en el súper");
    assert_eq!(kind(&a), "LOG_TRANSACTION");
    assert_eq!(a.params.amount, Param::Given(25_000));
    assert_eq!(category(&a), Some("supermercado"));
    assert_eq!(a.params.description.as_deref(), Some("súper"));
    assert_eq!(
        a.params.date,
        Param::Missing,
        "today is the default, set by the matrix"
    );

    let a = only("ayer pagué $1,800.50 de luz");
    assert_eq!(a.params.amount, Param::Given(180_050));
    assert_eq!(category(&a), Some("servicios"));
    assert_eq!(a.params.date, Param::Given(today().pred_opt().unwrap()));

    let a = only("120 de uber");
    assert_eq!(
        (kind(&a), category(&a)),
        ("LOG_TRANSACTION", Some("transporte"))
    );
    assert_eq!(a.params.merchant.as_deref(), Some("uber"));

    let a = only("Comí en Tacos El Güero, fueron 180 pesos");
    assert_eq!(a.params.amount, Param::Given(18_000));
    assert_eq!(category(&a), Some("restaurantes"));

    let a = only("gasté 350 el 15 en farmacia");
    assert_eq!(a.params.amount, Param::Given(35_000));
    assert_eq!(
        a.params.date,
        Param::Given(NaiveDate::from_ymd_opt(2026, 11, 15).unwrap())
    );
    assert_eq!(category(&a), Some("salud"));

    let a = only("gasté 400");
    assert_eq!(a.params.amount, Param::Given(40_000));
    assert_eq!(a.params.category, Param::Missing, "asked next");
}

#[test]
fn income_is_told_apart_from_spending() {
    let a = only("me pagaron la quincena, 9500");
    assert_eq!(kind(&a), "LOG_TRANSACTION");
    assert_eq!(
        a.params.kind,
        Param::Given(crate::finance::core::TxKind::Income)
    );
    assert_eq!(category(&a), Some("salario"));
    assert_eq!(a.params.amount, Param::Given(950_000));
    let a = only("vendí mi bici en 2 mil");
    assert_eq!(
        a.params.kind,
        Param::Given(crate::finance::core::TxKind::Income)
    );
    assert_eq!(a.params.amount, Param::Given(200_000));
}

#[test]
fn questions_become_queries_of_the_right_tools() {
    let a = only("¿cuánto llevo en comida este mes?");
    assert_eq!(kind(&a), "QUERY_DATA");
    assert_eq!(tools(&a), ["analyzeSpendingPattern"]);
    let request = a.params.tools[0].given().unwrap();
    assert_eq!(request.category.map(|c| c.key), Some("comida"));
    assert_eq!(
        request.period,
        Some(crate::finance::core::tools::Period::CurrentMonth)
    );

    assert_eq!(
        tools(&only("¿cómo voy con mi presupuesto?")),
        ["getBudgetStatus"]
    );
    assert_eq!(tools(&only("¿tengo gastos raros?")), ["detectAnomalies"]);
    assert_eq!(
        tools(&only("¿a este ritmo cuánto voy a gastar este mes?")),
        ["predictMonthlySpending"]
    );
    assert_eq!(
        tools(&only("muéstrame la tendencia de los últimos meses")),
        ["getSpendingTrends"]
    );
    let search = only("busca mis gastos de comida");
    assert_eq!(tools(&search), ["searchExpenses"]);
    assert_eq!(
        search.params.tools[0].given().unwrap().query.as_deref(),
        Some("comida")
    );
    assert_eq!(tools(&only("¿cuál es mi saldo?")), ["getBankBalance"]);
    assert_eq!(tools(&only("¿cuánto debo?")), ["getDebts"]);
    let last_month = only("¿cuánto gasté en transporte el mes pasado?");
    assert_eq!(
        last_month.params.tools[0].given().unwrap().period,
        Some(crate::finance::core::tools::Period::LastMonth)
    );
    let october = only("¿cuánto gasté en octubre?");
    assert_eq!(
        october.params.tools[0].given().unwrap().period,
        Some(crate::finance::core::tools::Period::Month(
            NaiveDate::from_ymd_opt(2026, 10, 1).unwrap()
        ))
    );
}

#[test]
fn budgets_balances_simulations_and_debts() {
    let a = only("pon mi presupuesto en 8000");
    assert_eq!(
        (kind(&a), a.params.amount.clone()),
        ("SET_BUDGET", Param::Given(800_000))
    );
    let a = only("mi presupuesto de comida es de 3 mil");
    assert_eq!(
        (category(&a), a.params.amount.clone()),
        (Some("comida"), Param::Given(300_000))
    );

    let a = only("tengo 12,000 en el banco");
    assert_eq!(
        (kind(&a), a.params.amount.clone()),
        ("SET_BANK_BALANCE", Param::Given(1_200_000))
    );

    let a = only("¿me alcanza para unos tenis de 1800?");
    assert_eq!(kind(&a), "SIMULATE_PURCHASE");
    assert_eq!(a.params.amount, Param::Given(180_000));
    assert_eq!(category(&a), Some("ropa"));

    let a = only("le debo 3000 a Juan, pago mínimo 500 el día 15");
    assert_eq!(kind(&a), "MANAGE_DEBT");
    assert_eq!(a.params.debt_name, Param::Given("Juan".into()));
    assert_eq!(a.params.debt_balance, Param::Given(300_000));
    assert_eq!(a.params.debt_minimum, Param::Given(50_000));
    assert_eq!(a.params.debt_due_day, Param::Given(15));

    let mut owing = input(FinanceState::Idle, None, "le pagué 1000 a Juan");
    owing.debts = vec!["Juan".into()];
    let a = propose(&owing).actions().remove(0);
    assert_eq!(a.params.debt_payment, Param::Given(100_000));
    assert_eq!(a.params.debt_name, Param::Given("Juan".into()));
    assert_eq!(a.params.debt_balance, Param::Missing);
}

#[test]
fn corrections_name_the_new_category_not_the_old_one() {
    let a = only("eso era transporte, no comida");
    assert_eq!(
        (kind(&a), category(&a)),
        ("CORRECT_CATEGORY", Some("transporte"))
    );
    let a = only("no era comida sino transporte");
    assert_eq!(category(&a), Some("transporte"));
    let a = only("cámbialo a restaurantes");
    assert_eq!(category(&a), Some("restaurantes"));
}

#[test]
fn a_clarification_reply_patches_the_draft() {
    let mut draft = Draft::new(Intent::LogTransaction);
    draft.amount_cents = Some(25_000);
    draft.questions = vec![Field::Category];
    let reply =
        |text: &str| propose(&input(FinanceState::Clarifying, Some(draft.clone()), text)).actions();
    let a = &reply("fue ayer")[0];
    assert_eq!(kind(a), "PATCH_DRAFT");
    assert_eq!(a.params.date, Param::Given(today().pred_opt().unwrap()));
    let a = &reply("categoría comida")[0];
    assert_eq!(category(a), Some("comida"));
    let a = &reply("350")[0];
    assert_eq!(a.params.amount, Param::Given(35_000));
    assert_eq!(kind(&reply("cancelar")[0]), "CANCEL");
    assert_eq!(kind(&reply("mmm no sé")[0]), "CLARIFY");
    // A complete new request while a question is open is that request (the
    // backend sets the draft aside and says so); a bare answer patches.
    assert_eq!(kind(&reply("¿cuánto llevo en comida?")[0]), "QUERY_DATA");
    assert_eq!(kind(&reply("en comida")[0]), "PATCH_DRAFT");
    // A debt with its amount is no answer about a purchase.
    assert_eq!(
        kind(&reply("ah oye mejor apunta que le pagué a Juan 500 de lo que le debo")[0]),
        "MANAGE_DEBT"
    );

    let mut debt = Draft::new(Intent::ManageDebt);
    debt.questions = vec![Field::DebtName];
    debt.debt.balance_cents = Some(300_000);
    let a = &propose(&input(FinanceState::Clarifying, Some(debt), "con Pedro")).actions()[0];
    assert_eq!(a.params.debt_name, Param::Given("Pedro".into()));
}

#[test]
fn greetings_help_and_noise() {
    assert_eq!(kind(&only("hola")), "REPLY");
    assert_eq!(kind(&only("¿qué puedes hacer?")), "REPLY");
    assert_eq!(kind(&only("asdf qwerty")), "CLARIFY");
    let thanks = propose(&input(FinanceState::Idle, None, "gracias"));
    assert_eq!(thanks.response_text, "¡Con gusto!");
    assert!(matches!(
        only("gracias").kind,
        FinanceActionType::Allowed(_)
    ));
}

#[test]
fn budgets_in_other_words_debt_questions_and_two_movements() {
    for message in [
        "ponme un tope de 1500 al mes pa uber",
        "mi limite para el super son 4500 al mes",
        "no quiero gastar más de 5000 en restaurantes al mes",
        "oye mejor ponme un máximo de 2000 al mes en ropa",
    ] {
        assert_eq!(kind(&only(message)), "SET_BUDGET", "{message}");
    }
    // «cuánto» asks wherever it stands.
    let asked = only("y nada más de la tarjeta cuánto le debo");
    assert_eq!(kind(&asked), "QUERY_DATA");
    assert_eq!(tools(&asked), ["getDebts"]);
    // An income and an expense: two writes, in the order said.
    let both = idle("me cayó la quincena, 8500, y ya me gasté 600 en el súper jaja");
    assert_eq!(both.len(), 2, "{both:?}");
    assert_eq!(category(&both[0]), Some("salario"));
    assert_eq!(category(&both[1]), Some("supermercado"));
    assert_eq!(
        movements("gasté 1,200 en renta, y me pagaron 300"),
        [
            ("gasté 1,200 en renta".to_owned(), false),
            ("me pagaron 300".to_owned(), true)
        ]
    );
}

#[test]
fn lists_without_a_verb_units_at_a_price_and_halves() {
    // Three spendings listed with no verb, each with what it paid.
    let listed = idle("10 bs fotocopias, 3.50 un api con pastel y 2 el trufi");
    assert_eq!(listed.len(), 3, "{listed:?}");
    assert_eq!(
        listed
            .iter()
            .map(|a| a.params.amount.clone())
            .collect::<Vec<_>>(),
        [Param::Given(1_000), Param::Given(350), Param::Given(200)]
    );
    assert_eq!(category(&listed[1]), Some("comida"));
    assert_eq!(category(&listed[2]), Some("transporte"));
    // A count of things is no money of its own.
    assert_eq!(idle("compré pan 20 y 2 refrescos").len(), 1);
    // Units at a price each make their total, which counts as said.
    let sold =
        idle("vendi 12 kilos de papa a 8 el kilo y compre 3 arrobas de cebolla pa revender en 150");
    assert_eq!(sold.len(), 2, "{sold:?}");
    assert_eq!(sold[0].params.amount, Param::Given(9_600));
    assert_eq!(sold[1].params.amount, Param::Given(15_000));
    assert_eq!(category(&sold[1]), Some("otros"));
    assert!(amount::stated("12 kilos de papa a 8 el kilo").contains(&9_600));
    // «mi mitad»: half of the figure, and the half is a figure said.
    let half = only("pagamos el alquiler 2800 con mi pareja, anota solo mi mitad porfa");
    assert_eq!(half.params.amount, Param::Given(140_000));
    assert!(amount::stated("pagamos 2800 con mi pareja, solo mi mitad").contains(&140_000));
    // A figure that already is the half, or a pizza half and half, is as said.
    assert_eq!(
        only("transferí mi mitad del alquiler: 1400").params.amount,
        Param::Given(140_000)
    );
    assert!(!amount::stated("transferí mi mitad del alquiler: 1400").contains(&70_000));
    assert_eq!(
        only("pizza mitad y mitad 90").params.amount,
        Param::Given(9_000)
    );
    // A total said beats units times their price; «a 1 cada uno» inside a
    // dozen is no price of the dozen.
    assert_eq!(
        only("compre 3 kilos de carne a 48 el kilo, total 140 con rebaja")
            .params
            .amount,
        Param::Given(14_000)
    );
    assert!(amount::by_the_unit("compré 2 docenas de huevos a 1 cada uno").is_empty());
    // Words of other things are no food or health.
    assert_ne!(
        category(&only("cambié las pastillas de freno 350")),
        Some("salud")
    );
    assert_ne!(
        category(&only("pagué 20 dólares de la api de openai")),
        Some("comida")
    );
    // Someone else's spendings are no list of the person's.
    assert!(idle("mi hermano 200 en gasolina y 50 en comida").len() < 2);
    assert!(!amount::stated("2800 para la renta").contains(&140_000));
    assert_eq!(
        category(&only("compre remedios para la tos de mi hijo, 35")),
        Some("salud")
    );
    // A movement and a question about the spending: both, the answer first.
    let both = idle("gaste 25 en saltenas, cuanto llevo en comida esta semana");
    assert_eq!(
        both.iter().map(kind).collect::<Vec<_>>(),
        ["QUERY_DATA", "LOG_TRANSACTION"]
    );
    assert_eq!(both[1].params.amount, Param::Given(2_500));
    let noted = idle("apunta 1450 de gasolina y dime cuanto llevo en transporte");
    assert_eq!(
        noted.iter().map(kind).collect::<Vec<_>>(),
        ["QUERY_DATA", "LOG_TRANSACTION"]
    );
    assert_eq!(
        kind(&only(
            "este mes no quiero gastar mas de 500 en salir, ponmelo"
        )),
        "SET_BUDGET"
    );
    assert_eq!(
        category(&only(
            "este mes no quiero gastar mas de 500 en salir, ponmelo"
        )),
        Some("entretenimiento")
    );
}

#[test]
fn in_clarifying_only_a_fitting_reply_patches() {
    let mut draft = Draft::new(Intent::LogTransaction);
    draft.amount_cents = Some(30_000);
    draft.questions = vec![Field::Category];
    let clarifying = |message: &str| {
        propose(&input(
            FinanceState::Clarifying,
            Some(draft.clone()),
            message,
        ))
        .actions()
    };
    assert_eq!(kind(&clarifying("en comida")[0]), "PATCH_DRAFT");
    assert_eq!(kind(&clarifying("gasté 150 en uber")[0]), "LOG_TRANSACTION");
    assert_eq!(
        kind(&clarifying("¿cuánto llevo gastado este mes?")[0]),
        "QUERY_DATA"
    );
    // A category named inside a question about spending is the question's, not
    // the open draft's answer.
    assert_eq!(
        kind(&clarifying("y cuanto llevamos gastado en salud este mes")[0]),
        "QUERY_DATA"
    );
}

#[test]
fn an_income_never_takes_an_expense_category_and_english_asks_to_afford() {
    // What the money came from (a taxi) is no expense category of an income:
    // it is another income, shown in the confirmation.
    let a = only("y hoy gane 1200 limpios con el taxi apuntalos");
    assert_eq!(kind(&a), "LOG_TRANSACTION");
    assert_eq!(category(&a), Some("otros_ingresos"));
    assert_eq!(
        category(&only("me pagaron la quincena, 8000")),
        Some("salario")
    );
    assert_eq!(
        kind(&only("can I afford unos AirPods de 4,200?")),
        "SIMULATE_PURCHASE"
    );
    let a = only(
        "deseo establecer un límite mensual de dos mil pesos para medicamentos y consultas médicas",
    );
    assert_eq!(kind(&a), "SET_BUDGET");
    assert_eq!(category(&a), Some("salud"));
}

#[test]
fn incomes_are_read_by_who_receives_and_default_to_another_income() {
    for (text, cents, key) in [
        (
            "me acaban de pagar 15,500 por el proyecto de branding",
            1_550_000,
            "otros_ingresos",
        ),
        (
            "y hoy gane 1200 limpios con el taxi apuntalos",
            120_000,
            "otros_ingresos",
        ),
        (
            "Registre por favor mi sueldo de este mes: $28,000",
            2_800_000,
            "salario",
        ),
        ("mi jefe me depositó 3000", 300_000, "otros_ingresos"),
    ] {
        let a = only(text);
        assert_eq!(kind(&a), "LOG_TRANSACTION", "{text}");
        assert_eq!(
            a.params.kind,
            Param::Given(crate::finance::core::TxKind::Income),
            "{text}"
        );
        assert_eq!(a.params.amount, Param::Given(cents), "{text}");
        assert_eq!(category(&a), Some(key), "{text}");
    }
    // Taken from pay, or change given back, is no income.
    for text in [
        "me descontaron 500 del sueldo",
        "pagué 200 del súper y me dieron 50 de cambio",
    ] {
        assert!(
            idle(text)
                .iter()
                .all(|a| a.params.kind != Param::Given(crate::finance::core::TxKind::Income)),
            "{text}"
        );
    }
    // Charged or paid by me is spending.
    let a = only("me cobraron 299 de Spotify");
    assert_eq!(
        a.params.kind,
        Param::Given(crate::finance::core::TxKind::Expense)
    );
    let a = only("paid the rent hoy, 7,500");
    assert_eq!(category(&a), Some("vivienda"));
}

#[test]
fn several_movements_in_one_message_are_several_writes_in_order() {
    let actions = idle("hoy me cobraron 299 de Spotify y 149 de iCloud");
    let amounts: Vec<_> = actions.iter().map(|a| a.params.amount.clone()).collect();
    assert_eq!(amounts, [Param::Given(29_900), Param::Given(14_900)]);
    assert!(actions.iter().all(|a| category(a) == Some("suscripciones")));
    // The date said once is every movement's.
    let actions = idle("ayer pagué 500 de luz, 300 de agua y 250 de gas");
    assert_eq!(actions.len(), 3);
    assert!(
        actions
            .iter()
            .all(|a| a.params.date == Param::Given(today().pred_opt().unwrap()))
    );
    // A count of things is no second movement.
    assert_eq!(idle("gasté 300 en comida y 2 refrescos").len(), 1);
}

#[test]
fn a_debt_without_its_amount_asks_how_much_and_reads_the_name_alone() {
    let a = only("le debo a mi tía lo de los boletos de avión");
    assert_eq!(kind(&a), "MANAGE_DEBT");
    assert_eq!(a.params.debt_name, Param::Given("tía".into()));
    let a = only("me prestó mi compadre Toño 3 mil, apúntalo que se los debo");
    assert_eq!(a.params.debt_name, Param::Given("compadre Toño".into()));
    // «si» answering «¿Con quién es la deuda?» names nobody.
    let mut debt = Draft::new(Intent::ManageDebt);
    debt.questions = vec![Field::DebtName];
    debt.debt.balance_cents = Some(300_000);
    let a = &propose(&input(FinanceState::Clarifying, Some(debt), "si")).actions()[0];
    assert_eq!(kind(a), "CLARIFY");
    // Money owed to the person is kept as owed to them, never logged.
    let owed = only("Mi compadre Rogelio me debe 2,500");
    assert_eq!(kind(&owed), "MANAGE_DEBT");
    assert_eq!(owed.params.debt_owed_to_me, Param::Given(true));
    assert_eq!(owed.params.debt_balance, Param::Given(250_000));
    assert_eq!(debt_name(&owed), Some("compadre Rogelio"));
    // So is money lent: never an expense nor an income.
    let lent = only("Le presté 800 a mi sobrina para sus libros");
    assert_eq!(kind(&lent), "MANAGE_DEBT");
    assert_eq!(lent.params.debt_owed_to_me, Param::Given(true));
    assert_eq!(lent.params.debt_balance, Param::Given(80_000));
    assert_eq!(debt_name(&lent), Some("sobrina"));
}

#[test]
fn a_taken_back_amount_patches_and_a_supposed_purchase_is_simulated() {
    let mut draft = Draft::new(Intent::LogTransaction);
    draft.amount_cents = Some(45_000);
    draft.questions = vec![Field::Category];
    let a = &propose(&input(
        FinanceState::Clarifying,
        Some(draft),
        "no, fueron 540",
    ))
    .actions()[0];
    assert_eq!(kind(a), "PATCH_DRAFT");
    assert_eq!(a.params.amount, Param::Given(54_000));

    // Asked the balance for a simulation, «¿y unos audífonos de 2,500?» is
    // another purchase; «tengo 12000» is the balance.
    let mut balance = Draft::new(Intent::SetBankBalance);
    balance.questions = vec![Field::Amount];
    let mut purchase = Draft::new(Intent::SimulatePurchase);
    purchase.amount_cents = Some(2_000_000);
    balance.resume = Some(Box::new(purchase));
    let reply = |text: &str| {
        propose(&input(
            FinanceState::Clarifying,
            Some(balance.clone()),
            text,
        ))
        .actions()
    };
    let a = &reply("¿y unos audífonos de 2,500?")[0];
    assert_eq!(kind(a), "SIMULATE_PURCHASE");
    assert_eq!(a.params.amount, Param::Given(250_000));
    assert_eq!(
        kind(&reply("y si fuera una de doce mil quinientos?")[0]),
        "SIMULATE_PURCHASE"
    );
    assert_eq!(kind(&reply("tengo 12000")[0]), "PATCH_DRAFT");

    // The balance said beside the purchase answers the balance question.
    let actions =
        idle("me alcanza pa un viaje a oaxaca de 6 mil? tengo veinte mil en el banco wey");
    assert_eq!(kind(&actions[0]), "SIMULATE_PURCHASE");
    assert_eq!(actions[0].params.amount, Param::Given(600_000));
    assert_eq!(kind(&actions[1]), "PATCH_DRAFT");
    assert_eq!(actions[1].params.amount, Param::Given(2_000_000));
    assert_eq!(
        kind(&only("¿puedo pagar un hotel en Mazatlán de 4,200?")),
        "SIMULATE_PURCHASE"
    );
    // A point between digits is no full stop.
    let actions = idle("¿me alcanza para un viaje de 6 mil? tengo 20.000 en el banco");
    assert_eq!(actions[1].params.amount, Param::Given(2_000_000));
}

/// Issue 20, read on a blind set: slang thousands, a count beside the money,
/// «al» before a name, English pay and budget words, an errand to a place, a
/// movement told again with «me equivoqué», a balance said at a confirmation.
#[test]
fn slang_counts_errands_and_a_balance_at_a_confirmation() {
    let logged = only("anoche se me fueron 2 lucas en chelas en el bar");
    assert_eq!(logged.params.amount, Param::Given(200_000));
    let sold = only("también vendí 3 pasteles, me dieron 1,350");
    assert_eq!(sold.params.amount, Param::Given(135_000));
    // Money in another currency said after «y» is a movement of its own.
    assert_eq!(idle("gasté 300 en comida y 50 euros en taxi").len(), 2);
    let paid = only("hoy le abone 500 varos al chuy");
    assert_eq!(kind(&paid), "MANAGE_DEBT");
    assert_eq!(
        paid.params.debt_name.given().map(String::as_str),
        Some("chuy")
    );
    assert_eq!(
        category(&only("hey, me cayó el paycheck, 32k de salary")),
        Some("salario")
    );
    assert_eq!(
        kind(&only("set a budget de 3k para restaurants this month")),
        "SET_BUDGET"
    );
    assert_eq!(
        category(&only("compré los flights a Cancún, $6,450.80 total")),
        Some("viajes")
    );
    let errand = only("antier fui a la farmacia por las medicinas de mi señora");
    assert_eq!(kind(&errand), "LOG_TRANSACTION");
    assert_eq!(category(&errand), Some("salud"));
    assert_eq!(errand.params.amount, Param::Missing);
    let again = only("pagué la renta, fueron 10,500, me equivoqué");
    assert_eq!(kind(&again), "LOG_TRANSACTION");
    assert_eq!(category(&again), Some("vivienda"));
    // Waiting for a purchase's confirmation, a balance is a request of its own.
    let mut pending = Draft::new(Intent::LogTransaction);
    pending.amount_cents = Some(90_000);
    let read = propose(&input(
        FinanceState::Clarifying,
        Some(pending),
        "tengo 14,300 en el banco",
    ))
    .actions();
    assert_eq!(read.len(), 1);
    assert_eq!(kind(&read[0]), "SET_BANK_BALANCE");
}

fn debt_name(action: &FinanceAction) -> Option<&str> {
    action.params.debt_name.given().map(String::as_str)
}

#[test]
fn a_figure_with_an_unknown_remainder_is_asked() {
    let a = only("el sabado me gaste dos mil y pico en refacciones para el taxi");
    assert_eq!(kind(&a), "LOG_TRANSACTION");
    assert_eq!(a.params.amount, Param::Missing);
    assert_eq!(
        only("gasté 500 y tantos en el súper").params.amount,
        Param::Missing
    );
    // «y algo de propina» is a second thing, the figure stands.
    assert_eq!(
        only("gasté 500 y algo de propina en el restaurante")
            .params
            .amount,
        Param::Given(50_000)
    );
    assert_eq!(
        only("gasté 2,180 en refacciones").params.amount,
        Param::Given(218_000)
    );
}

#[test]
fn a_card_paid_with_is_no_debt() {
    let a = only("also pagué la suscripción de Figma, 299 pesos, con la tarjeta");
    assert_eq!(kind(&a), "LOG_TRANSACTION");
    assert_eq!(a.params.amount, Param::Given(29_900));
    assert_eq!(category(&a), Some("suscripciones"));
    assert_eq!(
        kind(&only("pagué 500 del súper con tarjeta de crédito")),
        "LOG_TRANSACTION"
    );
    // Paying the card itself is its debt.
    assert_eq!(kind(&only("le aboné 2000 a la tarjeta")), "MANAGE_DEBT");
}

#[test]
fn the_category_a_movement_is_put_in_wins() {
    let a = only(
        "ay perdón, lo de los 890 no eran libros, era el disfraz para el festival, ponlo en ropa",
    );
    assert_eq!(kind(&a), "CORRECT_CATEGORY");
    assert_eq!(category(&a), Some("ropa"));
    let a =
        only("oye esa cena mejor ponla en regalos, fue mi regalo de aniversario para mi esposa");
    assert_eq!(kind(&a), "CORRECT_CATEGORY");
    assert_eq!(category(&a), Some("regalos"));
    // «ponle un tope» is a budget, not a movement put elsewhere.
    assert_eq!(
        kind(&only("ponle un tope de 1,000 al mes a mis suscripciones")),
        "SET_BUDGET"
    );
}

#[test]
fn the_lender_said_before_me_presto_is_the_debt() {
    let a = only("mi hermano Toño me prestó 3 mil para completar la renta");
    assert_eq!(kind(&a), "MANAGE_DEBT");
    assert_eq!(debt_name(&a), Some("hermano Toño"));
    let a = only("hola, el banco me prestó 5000");
    assert_eq!(debt_name(&a), Some("banco"));
    // Said after, the lender is still read there.
    let a = only("me prestó mi compadre Toño 3 mil");
    assert_eq!(debt_name(&a), Some("compadre Toño"));
    // What was lent after it is no one: the lender before is.
    let a = only("mi suegra Lupe me prestó la cantidad de cuatro mil pesos");
    assert_eq!(debt_name(&a), Some("suegra Lupe"));
    assert_eq!(
        debt_name(&only("mi primo Beto me prestó una lana, como 800")),
        Some("primo Beto")
    );
    // Said after the money, the lender is read there too.
    assert_eq!(debt_name(&only("me prestó dinero mi mamá")), Some("mamá"));
    assert_eq!(
        debt_name(&only("me prestó 500 pesos mi tía Rosa para el gas")),
        Some("tía Rosa")
    );
    assert_eq!(debt_name(&only("me prestó 2 mil la Vero")), Some("Vero"));
    // A time after the money is no one.
    assert_eq!(debt_name(&only("me prestó 500 la semana pasada")), None);
    // A date before «me prestó» is nobody; nor is what the money paid, nor a
    // clause before a comma.
    let a = only("ayer me prestó 500");
    assert_eq!(debt_name(&a), None);
    assert_ne!(
        debt_name(&only("para pagar la luz me prestó 300 mi tía")),
        Some("luz")
    );
    assert_ne!(
        debt_name(&only("como no tenía efectivo, me prestó 500 mi hermana")),
        Some("no tenía efectivo,")
    );
}

#[test]
fn a_trip_holds_its_transport_and_school_levels_are_education() {
    let a = only("¿me alcanza para irme el puente a Oaxaca? unos 6,500 entre camión y hotel");
    assert_eq!(category(&a), Some("viajes"));
    assert_eq!(category(&only("gasté 40 de camión")), Some("transporte"));
    let a = only("el día 3 pagué la inscripción de la primaria de mi hija, fueron 2,800");
    assert_eq!(category(&a), Some("educacion"));
}

#[test]
fn each_clause_of_two_movements_keeps_its_own_direction_and_thing() {
    let actions =
        idle("me cayó la quincena de mi viejo, 7,200, y de ahí saqué 2,300 para el súper");
    assert_eq!(actions.len(), 2, "{actions:?}");
    assert_eq!(category(&actions[0]), Some("salario"));
    assert_eq!(category(&actions[1]), Some("supermercado"));
    let actions = idle(
        "apunta que vendi la lavadora vieja en dos mil pesos y compre una nueva en ocho mil quinientos",
    );
    assert_eq!(actions.len(), 2, "{actions:?}");
    assert_eq!(category(&actions[0]), Some("otros_ingresos"));
    assert_eq!(category(&actions[1]), Some("hogar"));
    // Two incomes stay incomes.
    let actions = idle("me pagaron 8000 del proyecto y 500 de la renta del cuarto");
    assert!(
        actions
            .iter()
            .all(|a| matches!(category(a), Some("otros_ingresos" | "salario"))),
        "{actions:?}"
    );
}

#[test]
fn money_owed_to_the_person_is_kept_apart_from_their_debts() {
    let owed = only("y la Vero me debe 500 de la cooperación");
    assert_eq!(kind(&owed), "MANAGE_DEBT");
    assert_eq!(owed.params.debt_owed_to_me, Param::Given(true));
    assert_eq!(debt_name(&owed), Some("Vero"));
    assert_eq!(owed.params.debt_balance, Param::Given(50_000));
    // Words of time or stance are no part of the name; a repayment writes
    // nothing new.
    assert_eq!(debt_name(&only("la Fer todavía me debe 120")), Some("Fer"));
    assert_eq!(debt_name(&only("en total me deben 900")), None);
    for repaid in [
        "mi primo ya me pagó los 500 que le presté",
        "la Fer ya no me debe nada",
    ] {
        assert_eq!(kind(&only(repaid)), "REPLY", "{repaid}");
    }
    // An income told with its bank is an income, not the balance.
    assert_eq!(
        kind(&only("me depositaron 12 mil en bbva")),
        "LOG_TRANSACTION"
    );
    assert_eq!(
        kind(&only("tengo 7 mil 300 en banorte")),
        "SET_BANK_BALANCE"
    );
    assert_eq!(
        kind(&only("tengo doce mil cuatrocientos en la cuenta de nómina")),
        "SET_BANK_BALANCE"
    );
    // Without a name, a question about it reads what is owed.
    assert_eq!(kind(&only("¿cuánto me deben en total?")), "QUERY_DATA");
    assert_eq!(kind(&only("cuánto me debe toño todavía")), "QUERY_DATA");
    // Owing someone is still the person's own debt.
    let mine = only("le debo 500 a la Vero");
    assert_eq!(kind(&mine), "MANAGE_DEBT");
    assert_ne!(mine.params.debt_owed_to_me, Param::Given(true));
}

#[test]
fn a_cap_said_as_not_going_over_is_a_budget_with_its_category() {
    for (said, key) in [
        (
            "no quiero pasar de 2 mil al mes en restaurantes",
            "restaurantes",
        ),
        ("y tampoco quiero pasar de 800 al mes en ropa", "ropa"),
        (
            "ponme un tope de 1.5k al mes pa antros y fiestas",
            "entretenimiento",
        ),
    ] {
        let a = only(said);
        assert_eq!(kind(&a), "SET_BUDGET", "{said}");
        assert_eq!(category(&a), Some(key), "{said}");
    }
    // Spending itself, in the same words around it, is no cap.
    let a = only("me pasé, gasté 2 mil en restaurantes este fin");
    assert_eq!(kind(&a), "LOG_TRANSACTION");
    let a = only("gasté 600 en el antro");
    assert_eq!(category(&a), Some("entretenimiento"));
}

#[test]
fn pay_names_its_category_however_it_arrived() {
    let a = only("me depositaron la quincena, once mil ochocientos setenta pesos");
    assert_eq!(category(&a), Some("salario"));
    // Money deposited with no pay named is another income.
    let a = only("me depositaron 500 de lo del tanda");
    assert_eq!(category(&a), Some("otros_ingresos"));
}

#[test]
fn tolls_for_a_trip_are_transport_but_a_trip_paid_is_a_trip() {
    let a = only("pague 368 de casetas por el viaje a queretaro");
    assert_eq!(category(&a), Some("transporte"));
    let a = only("gasté 800 de gasolina para las vacaciones");
    assert_eq!(category(&a), Some("transporte"));
    // The bus and the hotel of a trip are the trip.
    let a = only("gasté 6,500 entre camión y hotel del viaje");
    assert_eq!(category(&a), Some("viajes"));
}

#[test]
fn a_count_said_in_words_is_no_amount_beside_the_price() {
    let a = only("compré una lámpara y dos cojines para la sala, 1,150");
    assert_eq!(kind(&a), "LOG_TRANSACTION");
    assert_eq!(a.params.amount, Param::Given(115_000));
    assert_eq!(category(&a), Some("hogar"));
    // Two amounts of money are still two («dos mil» is money, not a count).
    let actions = idle("pagué dos mil de renta y 300 de luz");
    assert_eq!(actions.len(), 2, "{actions:?}");
    // Alone, a figure in words is the amount.
    let a = only("gasté trescientos en tacos");
    assert_eq!(a.params.amount, Param::Given(30_000));
    // A figure in words before a currency is money, never a count.
    let actions = idle("gasté 500 en el súper y cincuenta dólares de propina");
    assert_eq!(actions.len(), 2, "{actions:?}");
}

#[test]
fn a_guessed_figure_is_asked_like_y_pico() {
    for said in [
        "el viernes pasado le meti gasolina a la camioneta pero no me acuerdo bien, como 800",
        "gasté más o menos 500 en el súper, no me acuerdo bien",
        "pagué aproximadamente 1,200 de luz pero no estoy seguro",
    ] {
        let a = only(said);
        assert_eq!(kind(&a), "LOG_TRANSACTION", "{said}");
        assert_eq!(a.params.amount, Param::Missing, "{said}");
    }
    // «como» that is not a guess, or a round figure said sure: it stands.
    let a = only("como no traía efectivo pagué 300 de uber con tarjeta");
    assert_eq!(a.params.amount, Param::Given(30_000));
    let a = only("gasté como 500 en el súper");
    assert_eq!(a.params.amount, Param::Given(50_000));
}

#[test]
fn money_received_after_a_comma_is_its_own_income() {
    let actions =
        idle("pagué el súper del fin de semana, 1,860, y Dani ya me transfirió su mitad, 930");
    assert_eq!(actions.len(), 2, "{actions:?}");
    assert_eq!(category(&actions[0]), Some("supermercado"));
    assert_eq!(actions[0].params.amount, Param::Given(186_000));
    assert_eq!(category(&actions[1]), Some("otros_ingresos"));
    assert_eq!(actions[1].params.amount, Param::Given(93_000));
    // A verb with no figure after it stays with the movement before it.
    let actions = idle("pagué 1,860 del súper y ya me transfirieron");
    assert_eq!(actions.len(), 1, "{actions:?}");
}

#[test]
fn one_more_purchase_at_a_place_is_logged_and_its_amount_asked() {
    let a = only("y también en la farmacia el jarabe y el paracetamol para Emi que anda con gripa");
    assert_eq!(kind(&a), "LOG_TRANSACTION");
    assert_eq!(category(&a), Some("salud"));
    assert_eq!(a.params.amount, Param::Missing);
    // «también» with nothing bought is no purchase.
    assert_ne!(
        kind(&only("también quiero saber cómo funciona")),
        "LOG_TRANSACTION"
    );
}

#[test]
fn put_elsewhere_at_a_confirmation_corrects_the_category() {
    let mut pending = Draft::new(Intent::LogTransaction);
    pending.amount_cents = Some(89_000);
    let said = "ah no espera, era el regalo de cumpleaños de mi sobrino, ponlo en regalos";
    let actions = propose(&input(
        FinanceState::Clarifying,
        Some(pending.clone()),
        said,
    ))
    .actions();
    assert_eq!(kind(&actions[0]), "CORRECT_CATEGORY");
    assert_eq!(category(&actions[0]), Some("regalos"));
    // While the category is still asked, the answer patches the draft.
    let mut asking = pending;
    asking.questions = vec![Field::Category];
    let actions = propose(&input(
        FinanceState::Clarifying,
        Some(asking),
        "ponlo en regalos",
    ))
    .actions();
    assert_eq!(kind(&actions[0]), "PATCH_DRAFT");
    assert_eq!(category(&actions[0]), Some("regalos"));
}

#[test]
fn a_figure_taken_back_at_a_confirmation_is_patched_with_it() {
    let mut pending = Draft::new(Intent::LogTransaction);
    pending.amount_cents = Some(36_800);
    pending.category = Some("transporte".into());
    let at_prompt = |draft: &Draft, said: &str| {
        propose(&input(FinanceState::Clarifying, Some(draft.clone()), said)).actions()
    };
    let a = &at_prompt(&pending, "no, fueron 386, me equivoque")[0];
    assert_eq!(kind(a), "PATCH_DRAFT");
    assert_eq!(a.params.amount, Param::Given(38_600));
    let mut budget = Draft::new(Intent::SetBudget);
    budget.amount_cents = Some(80_000);
    budget.category = Some("ropa".into());
    let a = &at_prompt(&budget, "no, mejor que sean mil")[0];
    assert_eq!(kind(a), "PATCH_DRAFT");
    assert_eq!(a.params.amount, Param::Given(100_000));
    // Another movement with its own verb and amount is a new request.
    let a = &at_prompt(&pending, "y gasté 200 en tacos")[0];
    assert_eq!(kind(a), "LOG_TRANSACTION");
}

/// «mi mamá me mandó 1500»: money sent to the person is an income, beside an
/// expense in the same message; a bill sent («me mandaron el recibo») is not.
#[test]
fn money_sent_to_the_person_is_an_income_and_a_bill_sent_is_not() {
    let actions = idle(
        "el sabado compre unos libros para la escuela en 1,249.90 y mi mama me mando 1500 para ayudarme",
    );
    assert_eq!(actions.len(), 2, "{actions:?}");
    assert_eq!(actions[0].params.amount, Param::Given(124_990));
    assert_eq!(category(&actions[0]), Some("educacion"));
    assert!(
        !actions[0]
            .params
            .description
            .as_deref()
            .is_some_and(|d| d.ends_with(" en")),
        "a concept never ends on a preposition"
    );
    assert_eq!(
        actions[1].params.kind,
        Param::Given(crate::finance::core::TxKind::Income)
    );
    assert_eq!(category(&actions[1]), Some("otros_ingresos"));
    let a = only("mi tía me envió una transferencia de 800");
    assert_eq!(
        a.params.kind,
        Param::Given(crate::finance::core::TxKind::Income)
    );
    // A bill sent is still an expense.
    let a = only("me mandaron el recibo de la luz de 520");
    assert_ne!(
        a.params.kind,
        Param::Given(crate::finance::core::TxKind::Income)
    );
    assert_eq!(category(&a), Some("servicios"));
}

/// Books for school are schooling; a novel at the bookshop is culture.
#[test]
fn books_for_school_are_education_and_other_books_culture() {
    assert_eq!(
        category(&only("hoy pagué 890 de los libros de inglés del niño")),
        Some("educacion")
    );
    assert_eq!(
        category(&only("compré los libros de texto, 1,100")),
        Some("educacion")
    );
    assert_eq!(
        category(&only("compré una novela en la librería, 350")),
        Some("cultura")
    );
    assert_eq!(category(&only("gasté 400 en libros")), Some("cultura"));
}

/// «máximo 4 lucas en el súper por mes», «a lo mucho 800 a la semana»: a
/// ceiling is a budget; «gasté máximo 300» or «hasta 500» without a period are
/// not.
#[test]
fn a_ceiling_in_any_words_is_a_budget_and_a_spending_is_not() {
    let a = only("máximo 4 lucas en el súper por mes");
    assert_eq!(kind(&a), "SET_BUDGET");
    assert_eq!(a.params.amount, Param::Given(400_000));
    assert_eq!(category(&a), Some("supermercado"));
    let a = only("a lo mucho 800 a la semana en antojos");
    assert_eq!(kind(&a), "SET_BUDGET");
    assert_eq!(
        kind(&only("quiero gastar hasta 3 mil al mes en ropa")),
        "SET_BUDGET"
    );
    assert_ne!(kind(&only("gasté máximo 300 en tacos")), "SET_BUDGET");
    assert_ne!(kind(&only("pagué hasta 500 de luz")), "SET_BUDGET");
    assert_ne!(kind(&only("me pagaron máximo 2 mil")), "SET_BUDGET");
}

/// «arriendo» is rent where people say it so.
#[test]
fn rent_in_other_words_is_housing() {
    assert_eq!(
        category(&only("y ya pagué el arriendo del mes, 7 lucas")),
        Some("vivienda")
    );
}

/// Asked for the bank balance, cash in hand is not it: the question stands;
/// a figure said apart from the cash is the balance.
#[test]
fn cash_in_hand_is_no_bank_balance() {
    let mut balance = Draft::new(Intent::SetBankBalance);
    balance.questions = vec![Field::Amount];
    balance.resume = Some(Box::new(Draft::new(Intent::SimulatePurchase)));
    let reply = |text: &str| {
        propose(&input(
            FinanceState::Clarifying,
            Some(balance.clone()),
            text,
        ))
    };
    let cash = reply("traigo como 600 en efectivo en la cartera");
    assert_eq!(kind(&cash.actions()[0]), "CLARIFY");
    assert_eq!(cash.response_text, messages::CASH_IS_NOT_BALANCE);
    let both = reply("en efectivo traigo unos 1,200 y en BBVA tengo 10,450").actions();
    assert_eq!(kind(&both[0]), "PATCH_DRAFT");
    assert_eq!(both[0].params.amount, Param::Given(1_045_000));
    let both = reply("traigo 5000 en efectivo y en la cuenta tengo 3000").actions();
    assert_eq!(both[0].params.amount, Param::Given(300_000));
    // «traigo» money on a debit card is the bank.
    let card = reply("traigo 4 mil en la de débito").actions();
    assert_eq!(kind(&card[0]), "PATCH_DRAFT");
    assert_eq!(card[0].params.amount, Param::Given(400_000));
}

/// A debt's name ends with its clause («a Chayo, anótelo») and a card keeps
/// its «de» («la tarjeta de Liverpool»); what is left to pay is asked of the
/// debts.
#[test]
fn a_debt_name_ends_with_its_clause_and_what_is_left_is_asked() {
    let a = only("Ayer le aboné 800 pesos a Chayo, anótelo por favor");
    assert_eq!(kind(&a), "MANAGE_DEBT");
    assert_eq!(debt_name(&a), Some("Chayo"));
    assert_eq!(a.params.debt_payment, Param::Given(80_000));
    assert_eq!(
        debt_name(&only("le aboné 500 a Memo apúntalo")),
        Some("Memo")
    );
    assert_eq!(
        debt_name(&only("hoy le aboné 1,500 a la tarjeta de liverpool")),
        Some("tarjeta de liverpool")
    );
    assert_eq!(
        debt_name(&only(
            "hoy pague 2,000 de abono a la tarjeta de credito de banamex"
        )),
        Some("tarjeta de credito de banamex")
    );
    // A name of several words stands.
    assert_eq!(
        debt_name(&only("le debo 3000 a Juan Pérez")),
        Some("Juan Pérez")
    );
    let a = only("¿Y ahora cuánto me queda por pagarle?");
    assert_eq!(kind(&a), "QUERY_DATA");
    assert_eq!(tools(&a), ["getDebts"]);
    assert_eq!(
        tools(&only("cuanto me falta por pagar de la tarjeta")),
        ["getDebts"]
    );
    // What is left of the month's money is no debt.
    assert_ne!(
        tools(&only("¿cuánto me queda del presupuesto?")),
        ["getDebts"]
    );
}

/// In CLARIFYING, a question about a period of one's movements starts anew,
/// even without «?»; a question about the open one patches.
#[test]
fn in_clarifying_a_question_over_a_period_starts_anew() {
    let mut draft = Draft::new(Intent::LogTransaction);
    draft.amount_cents = Some(30_000);
    draft.questions = vec![Field::Category];
    let clarifying = |message: &str| {
        propose(&input(
            FinanceState::Clarifying,
            Some(draft.clone()),
            message,
        ))
        .actions()
    };
    assert_eq!(
        kind(&clarifying("en que se me esta yendo mas el varo este mes")[0]),
        "QUERY_DATA"
    );
    assert_eq!(
        kind(&clarifying("cuál fue mi categoría más cara el mes pasado")[0]),
        "QUERY_DATA"
    );
    assert_eq!(
        kind(&clarifying("en qué categoría lo pongo? en ropa creo")[0]),
        "PATCH_DRAFT"
    );
    assert_eq!(kind(&clarifying("¿comida?")[0]), "PATCH_DRAFT");
}

/// «trescientos ochenta y dos con cincuenta» is one amount, never two
/// movements cut at its «y»; «300 de luz y 200 de agua» still are two.
#[test]
fn a_number_in_words_is_not_cut_at_its_y() {
    let actions = idle("pagué trescientos ochenta y dos con cincuenta en la farmacia");
    assert_eq!(actions.len(), 1, "{actions:?}");
    assert_eq!(actions[0].params.amount, Param::Given(38_250));
    assert_eq!(
        idle("pagué trescientos de luz y doscientos de agua").len(),
        2
    );
}

/// What a stranger's review found: a paying told is no cap, things counted
/// are no money sent, a thing after «con» is no cents, and what is left after
/// paying something else is no debt.
#[test]
fn caps_money_sent_cents_and_debts_left_are_read_narrowly() {
    for told in [
        "pago hasta 5 mil al mes de renta",
        "el banco me cobra máximo 300 de comisión por mes",
    ] {
        assert_ne!(kind(&only(told)), "SET_BUDGET", "{told}");
    }
    let a = only("me mandaron 2 recibos de luz de 500");
    assert_ne!(
        a.params.kind,
        Param::Given(crate::finance::core::TxKind::Income)
    );
    let a = only("pagué 150 con 1 refresco");
    assert_eq!(a.params.amount, Param::Given(15_000));
    let a = only("taxi 90 con 1 maleta");
    assert_eq!(a.params.amount, Param::Given(9_000));
    // Cents still read where the figure ends the amount.
    let a = only("gasté 45 con 50 centavos en el camión");
    assert_eq!(a.params.amount, Param::Given(4_550));
    for asked in [
        "¿cuánto me queda después de pagar la renta?",
        "cuánto me falta para pagar el viaje",
    ] {
        assert_ne!(kind(&only(asked)), "MANAGE_DEBT", "{asked}");
    }
}

#[test]
fn snacks_a_theme_park_and_wings_out_have_their_categories() {
    assert_eq!(
        category(&only("gasté 60 en unas papitas y un refresco")),
        Some("comida")
    );
    // A drink beside a meal out is the meal's.
    assert_eq!(
        category(&only("gasté 200 en tacos y refrescos")),
        Some("restaurantes")
    );
    assert_eq!(
        category(&only("pagué 1,900 de las entradas a Six Flags")),
        Some("entretenimiento")
    );
    assert_eq!(
        category(&only("me gasté 320 en alitas con los del trabajo")),
        Some("restaurantes")
    );
}

#[test]
fn money_that_fell_in_a_cap_asked_for_and_a_name_said_first_are_read() {
    // «me cayeron 1800 de un jale»: money in, then an expense after it.
    let both =
        idle("me cayeron 1800 de un jale de pintura el finde y de ahí me gasté 350 en la farmacia");
    assert_eq!(
        both.iter()
            .map(|a| (kind(a), category(a)))
            .collect::<Vec<_>>(),
        [
            ("LOG_TRANSACTION", Some("otros_ingresos")),
            ("LOG_TRANSACTION", Some("salud"))
        ]
    );
    // (A fine that fell is no income.)
    assert_ne!(
        category(&only("me cayeron 800 de multa por estacionarme mal")),
        Some("otros_ingresos")
    );
    let cap = only("no me dejes pasar de 3k en comida al mes porfa");
    assert_eq!((kind(&cap), category(&cap)), ("SET_BUDGET", Some("comida")));
    assert_eq!(
        category(&only(
            "gaste doscientos treinta y cuatro con cincuenta en copias e impresiones pa la tesis"
        )),
        Some("educacion")
    );
    // Lost or charged is no income; a discount beside a sale leaves it one.
    assert_ne!(
        category(&only("se me cayeron 200 pesos en la calle")),
        Some("otros_ingresos")
    );
    assert_eq!(
        category(&idle("vendí mi celular en 2500, le hice 200 de descuento")[0]),
        Some("otros_ingresos")
    );
    // A gym's sign-up is no school.
    assert_ne!(
        category(&only("pagué 800 de inscripción al gimnasio")),
        Some("educacion")
    );
    // A name said first, capitalised, is the debt's; «a» before a lower-case
    // word is not.
    let paid = only("A Toño ya le di 1,500 de lo que le debo");
    assert_eq!(
        (kind(&paid), debt_name(&paid)),
        ("MANAGE_DEBT", Some("Toño"))
    );
}

#[test]
fn a_draft_dropped_in_words_with_a_whole_new_write_starts_anew() {
    let mut draft = Draft::new(Intent::LogTransaction);
    draft.category = Some("supermercado".into());
    draft.questions = vec![Field::Amount];
    let asked = |message: &str| {
        propose(&input(
            FinanceState::Clarifying,
            Some(draft.clone()),
            message,
        ))
        .actions()
        .iter()
        .map(|a| (kind(a).to_owned(), category(a)))
        .collect::<Vec<_>>()
    };
    assert_eq!(
        asked("olvídalo, mejor anota 180 del Uber de regreso a la casa"),
        [("LOG_TRANSACTION".to_owned(), Some("transporte"))]
    );
    // Dropped alone, it is cancelled.
    assert_eq!(asked("olvídalo"), [("CANCEL".to_owned(), None)]);
    // «no, déjalo en 180» corrects the draft.
    assert_eq!(
        asked("no, déjalo en 180, lo gasté en el súper")[0].0,
        "PATCH_DRAFT"
    );
}

/// A bill paid late or a school's monthly fee is spending, not a debt; a
/// debt has someone owed. The pay named in a spending («el súper de la
/// quincena») says when, not what. Caps said as «techo», «no queremos pasar
/// de», «no más de … al mes».
#[test]
fn bills_fees_and_caps_in_their_own_words() {
    let both = idle(
        "por fin me cayó el pago del cliente, 8,500 del proyecto de septiembre, y ya pagué el internet que debía, 649",
    );
    assert_eq!(
        both.iter()
            .map(|a| (kind(a), category(a)))
            .collect::<Vec<_>>(),
        [
            ("LOG_TRANSACTION", Some("otros_ingresos")),
            ("LOG_TRANSACTION", Some("servicios"))
        ]
    );
    let fee = idle("me cayó la beca de 3,200 y ya pagué 1,450 de la mensualidad del inglés");
    assert_eq!(fee.len(), 2, "{fee:?}");
    assert_eq!(category(&fee[1]), Some("educacion"));
    assert_eq!(fee[1].params.amount, Param::Given(145_000));
    let a = only("pagué yo el súper de la quincena, 2,340.60");
    assert_eq!(category(&a), Some("supermercado"));
    // Someone owed is still a debt, and «lo que debo» the debt itself.
    assert_eq!(kind(&only("¿a cuánto asciende lo que debo?")), "QUERY_DATA");
    assert_eq!(
        kind(&only("ya le pagué a mi hermano lo que le debía, 2 mil")),
        "MANAGE_DEBT"
    );
    let back = only("le debía 2 mil a mi hermano, ya se los devolví");
    assert_eq!(kind(&back), "MANAGE_DEBT");
    assert_eq!(
        debt_name(&only(
            "le debía 2 mil a mi hermano mientras no me pagaban, ya se los devolví"
        )),
        Some("hermano")
    );
    // «que debía a mi primo» names who is owed: still the debt.
    assert_eq!(
        kind(&only("pagué los 500 que debía a mi primo")),
        "MANAGE_DEBT"
    );
    // A roof, a builder and money one spends are no cap and no school.
    assert_eq!(
        kind(&only("pagué 3 mil para arreglar el techo de la casa")),
        "LOG_TRANSACTION"
    );
    assert_ne!(
        category(&only("le pagué 1,200 al maestro de obra")),
        Some("educacion")
    );
    assert_ne!(
        kind(&only("en gasolina se me van no más de 800 al mes")),
        "SET_BUDGET"
    );
    assert_ne!(
        kind(&only("al mes le doy a mi mamá no más de 2 mil")),
        "SET_BUDGET"
    );
    // The pay itself is still income.
    assert_eq!(
        category(&only("me pagaron la quincena, 9 mil")),
        Some("salario")
    );
    for (said, key, cents) in [
        (
            "entre los dos no queremos pasar de 6 mil al mes en el súper",
            "supermercado",
            600_000,
        ),
        (
            "che, quiero ponerme un techo de 1,500 por mes para salir a comer",
            "restaurantes",
            150_000,
        ),
        (
            "y en ropa no más de 800 al mes, que me estoy zarpando",
            "ropa",
            80_000,
        ),
        // Chat spellings, and «que no pase de».
        (
            "q no me pase d 800 al mes en entretenimiento plis",
            "entretenimiento",
            80_000,
        ),
        (
            "Mi esposo y yo acordamos que el súper no pase de 5 mil al mes",
            "supermercado",
            500_000,
        ),
    ] {
        let a = only(said);
        assert_eq!(kind(&a), "SET_BUDGET", "{said}");
        assert_eq!(category(&a), Some(key), "{said}");
        assert_eq!(a.params.amount, Param::Given(cents), "{said}");
    }
    // «no más de» with no period is no cap.
    assert_ne!(kind(&only("gasté no más de 300 en el súper")), "SET_BUDGET");
}
#[test]
fn money_in_lent_borrowed_capped_or_told_without_its_amount() {
    // Someone paid the user: income, whatever it paid for.
    let rent = only("El inquilino del departamento de abajo me pagó la renta de noviembre, 6,500");
    assert_eq!(
        (kind(&rent), category(&rent)),
        ("LOG_TRANSACTION", Some("otros_ingresos"))
    );
    let tips = only("y hoy me dejaron como 300 de propinas entre todos los pasajes");
    assert_eq!(category(&tips), Some("otros_ingresos"));
    // Borrowed: a debt.
    assert_eq!(
        kind(&only(
            "Le pedí prestados 5 mil a mi compadre Chuy para la reparación del coche"
        )),
        "MANAGE_DEBT"
    );
    // A figure a month for a category, no verb: a cap.
    let cap = only("Mejor mil quinientos mensuales de ropa");
    assert_eq!((kind(&cap), category(&cap)), ("SET_BUDGET", Some("ropa")));
    // A purchase told without its amount: a write to complete.
    let told = only(
        "Oiga joven, fíjese que el lunes pasado le compré un regalo a mi nieto por su cumpleaños",
    );
    assert_eq!(
        (kind(&told), category(&told)),
        ("LOG_TRANSACTION", Some("regalos"))
    );
    assert!(told.params.amount.given().is_none());
    // …but a question without its mark is still a question.
    assert_eq!(
        kind(&only("gasté más en restaurantes que el mes pasado o menos")),
        "QUERY_DATA"
    );
}

#[test]
fn questions_fines_bills_and_negations_keep_their_reading() {
    for question in [
        "q cuanto llevo del presupuesto de 2000 de uber",
        "que limite tengo en comida 3000 o 3500",
    ] {
        assert_ne!(kind(&only(question)), "SET_BUDGET", "{question}");
    }
    for bill in ["la renta son 8 mil al mes", "Netflix 219 al mes"] {
        assert_ne!(kind(&only(bill)), "SET_BUDGET", "{bill}");
    }
    let fine = only("me dejaron una multa de 500 por estacionarme mal");
    assert_ne!(category(&fine), Some("otros_ingresos"));
    for not_bought in [
        "no compré nada de ropa este mes",
        "quiero saber cuándo compré los tenis",
    ] {
        assert_ne!(kind(&only(not_bought)), "LOG_TRANSACTION", "{not_bought}");
    }
    let lent = only("Le di prestados 500 a mi primo");
    assert_eq!(lent.params.debt_owed_to_me, Param::Given(true));
    assert_eq!(lent.params.debt_balance, Param::Given(50_000));
    assert_eq!(
        kind(&only("le pedí prestadas 5 lucas a mi compadre")),
        "MANAGE_DEBT"
    );
}

#[test]
fn regional_words_name_categories_and_caps_and_questions_are_read_as_such() {
    for (message, key) in [
        ("ayer cargué la SUBE con 5 lucas", "transporte"),
        ("35 en pasajes de minibus", "transporte"),
        (
            "hoy compré yerba y galletitas en el chino, 7.320",
            "supermercado",
        ),
        ("Y hace tres días la cuota de la comunidad, 60", "vivienda"),
        ("me levantaron una multa de transito de 1850", "transporte"),
        ("pagué 85 del comedor del cole de la niña", "educacion"),
    ] {
        assert_eq!(category(&only(message)), Some(key), "{message}");
    }
    // Everyday words name no category.
    for message in [
        "claro, gasté 200",
        "gasté 200 en lo máx",
        "gasté 200, hazme un análisis",
        "hice un pago parcial de 200",
        "compré un cable usb 150",
        "compré carne para el asado 300",
        "le di 100 a la comunidad de la iglesia",
    ] {
        assert_eq!(category(&only(message)), None, "{message}");
    }
    assert_eq!(
        category(&only("el casero me la sube a 4500 la renta")),
        Some("vivienda")
    );
    // «lo máximo que…» caps only spending; a report asked is a query.
    for message in [
        "lo máximo que gano al mes son 8000",
        "lo más que puedo ahorrar al mes son 2000",
        "lo máximo que me cobran de luz al mes son 400",
        "quiero un resumen de mi presupuesto de comida",
        "hazme un reporte del presupuesto de comida",
    ] {
        assert_ne!(kind(&only(message)), "SET_BUDGET", "{message}");
    }
    // A name set off by commas is one, never the first word of a message.
    assert_eq!(
        debt_name(&only("Un cliente, Marcos Pérez, me debe 1.200")),
        Some("Marcos Pérez")
    );
    for message in [
        "Oye, me debe 500 mi primo",
        "Mira, me deben 300 de la renta",
        "Bueno, me debe 300 Juan",
    ] {
        assert!(
            !matches!(debt_name(&only(message)), Some("Oye" | "Mira" | "Bueno")),
            "{message}"
        );
    }
    let cap = only("quiero que lo maximo que me gaste en ubers y didis sean 1200 por mes");
    assert_eq!(kind(&cap), "SET_BUDGET");
    assert_eq!(category(&cap), Some("transporte"));
    // A cap asked to be set with its figure still to say is a budget draft.
    let open = only("ponele un límite a lo que gasto en salidas");
    assert_eq!(kind(&open), "SET_BUDGET");
    assert_eq!(category(&open), Some("entretenimiento"));
    assert_eq!(tools(&only("a quien le debo todavia")), ["getDebts"]);
    assert_eq!(kind(&only("cuánto he vendido esta semana")), "QUERY_DATA");
    let moved = only("ay no, me equivoqué, lo del Éxito fue una chaqueta, va en ropa");
    assert_eq!(kind(&moved), "CORRECT_CATEGORY");
    assert_eq!(category(&moved), Some("ropa"));
    assert_eq!(
        debt_name(&only(
            "Un cliente, Marcos, todavía me debe 1.200 de la web que le hice"
        )),
        Some("Marcos")
    );
    let typed = only("ponle un limte de 2 mil al mes a restaurntes");
    assert_eq!(kind(&typed), "SET_BUDGET");
    assert_eq!(category(&typed), Some("restaurantes"));
    // Two things, then their figures in the same order.
    assert_eq!(
        movements("me cobraron netflix y spotify, 26.900 y 16.900")
            .iter()
            .map(|(text, income)| (text.as_str(), *income))
            .collect::<Vec<_>>(),
        [
            ("me cobraron netflix 26.900", false),
            ("spotify 16.900", false)
        ]
    );
    // «a fin de mes» is when the money goes back, not to whom.
    assert_eq!(
        debt_name(&only(
            "me prestaron 500 para el pasaje, tengo que devolverlo a fin de mes"
        )),
        None
    );
}

/// A sum paid back by someone who owes the person lowers what they owe (the
/// stored name the message points to, by a word of it); without anyone owing
/// it is income, never a spending; a sum passed to someone the person owes is
/// a payment of that debt.
#[test]
fn a_sum_paid_back_lowers_what_is_owed_and_a_sum_passed_pays_a_debt() {
    let with = |owed: &[&str], debts: &[&str], message: &str| {
        let mut input = input(FinanceState::Idle, None, message);
        input.owed_to_me = owed.iter().map(|s| s.to_string()).collect();
        input.debts = debts.iter().map(|s| s.to_string()).collect();
        let actions = propose(&input).actions();
        assert_eq!(actions.len(), 1, "{message}: {actions:?}");
        actions.into_iter().next().unwrap()
    };
    for (owed, message, name, paid) in [
        (
            "mi primo Javi",
            "ya me devolvio 1000 el javi",
            "mi primo Javi",
            100_000,
        ),
        (
            "Marcos",
            "Marcos me ha pagado hoy 700, el resto me lo da el viernes",
            "Marcos",
            70_000,
        ),
        ("la Fer", "la Fer me transfirió 250 hoy", "la Fer", 25_000),
        // The sum after the verb, not the largest.
        (
            "Javi",
            "Javi me devolvió 400 de los 1000 que me debe",
            "Javi",
            40_000,
        ),
    ] {
        let action = with(&[owed], &[], message);
        assert_eq!(kind(&action), "MANAGE_DEBT", "{message}");
        assert_eq!(
            action.params.debt_owed_to_me.given(),
            Some(&true),
            "{message}"
        );
        assert_eq!(
            action.params.debt_name.given().map(String::as_str),
            Some(name),
            "{message}"
        );
        assert_eq!(action.params.debt_payment.given(), Some(&paid), "{message}");
        assert!(action.params.debt_balance.given().is_none(), "{message}");
    }
    // Nobody owes it: money in.
    let income = with(
        &[],
        &[],
        "Marcos me ha pagado hoy 700, el resto me lo da el viernes",
    );
    assert_eq!(kind(&income), "LOG_TRANSACTION");
    assert_eq!(category(&income), Some("otros_ingresos"));
    // Salary is still salary beside someone who owes.
    let salary = with(&["Javi"], &[], "me pagaron 7800 de la quincena");
    assert_eq!(category(&salary), Some("salario"));
    // Money lent in the same message is no sum paid back; a word of a
    // stored name that is no name of a person points at nobody.
    let lent = with(&[], &[], "se me pasó anotar que le presté 300 a Javi");
    assert_eq!(kind(&lent), "MANAGE_DEBT");
    assert!(lent.params.debt_payment.given().is_none());
    let both = with(
        &["Javi"],
        &[],
        "mi jefe me pagó 2000 y le presté 500 a Javi",
    );
    assert!(both.params.debt_payment.given().is_none(), "{both:?}");
    let salary = with(
        &["mi compa del trabajo"],
        &[],
        "me pagaron 7800 del trabajo",
    );
    assert_eq!(kind(&salary), "LOG_TRANSACTION");
    let tacos = with(&[], &["mi hermano Luis"], "pagué 450 de tacos con Luis");
    assert_eq!(kind(&tacos), "LOG_TRANSACTION");
    // Passed to someone the person owes: that debt paid.
    let debt = with(&[], &["la Caro"], "hoy le pase 2500 a caro, la mitad");
    assert_eq!(kind(&debt), "MANAGE_DEBT");
    assert_eq!(debt.params.debt_payment.given(), Some(&250_000));
    assert!(debt.params.debt_owed_to_me.given() != Some(&true));
}

/// «que este mes no me pase de 2500 en el súper»: a cap for this month; a
/// spending told beside «no me pasé» is still a spending.
#[test]
fn not_going_over_a_sum_this_month_is_a_cap() {
    let cap = only(
        "Quisiera que este mes no me pase de dos mil quinientos pesos en el mandado del super",
    );
    assert_eq!(kind(&cap), "SET_BUDGET");
    assert_eq!(category(&cap), Some("supermercado"));
    let spent = only("este mes gasté 800 en salidas, no me pasé de lo que quería");
    assert_eq!(kind(&spent), "LOG_TRANSACTION");
    let gift = only("fueron 350, para el cumple de mi mama");
    assert_eq!(category(&gift), Some("regalos"));
}

/// «pagué la renta 3500 el internet 399»: movements run on without a join are
/// each their own; a count before its thing, or a figure corrected, is not
/// cut.
#[test]
fn movements_run_on_without_joins_are_each_their_own() {
    let amounts = |message: &str| -> Vec<(i64, Option<&'static str>)> {
        idle(message)
            .iter()
            .map(|a| (*a.params.amount.given().unwrap(), category(a)))
            .collect()
    };
    assert_eq!(
        amounts("pague la renta 3500 el internet 399"),
        [(350_000, Some("vivienda")), (39_900, Some("servicios"))]
    );
    assert_eq!(
        amounts("pague 300 de luz 200 de agua"),
        [(30_000, Some("servicios")), (20_000, Some("servicios"))]
    );
    assert_eq!(amounts("compré 2 kilos de carne 350").len(), 1);
    assert_eq!(
        amounts("pagué el gimnasio 450 no perdón el gimnasio fue 500"),
        [(50_000, Some("suscripciones"))]
    );
}

/// «me tocó sacar las fotocopias del parcial»: paid, its sum still to say;
/// «le he prestado 40 a Lucía»: money lent, owed back.
#[test]
fn paid_unwillingly_and_money_lent_in_the_perfect() {
    let copies = only("me tocó sacar las fotocopias del parcial de cálculo");
    assert_eq!(kind(&copies), "LOG_TRANSACTION");
    assert_eq!(category(&copies), Some("educacion"));
    let lent = only("le he prestado 40 a Lucía para la entrada del concierto");
    assert_eq!(kind(&lent), "MANAGE_DEBT");
    assert_eq!(lent.params.debt_owed_to_me.given(), Some(&true));
}

/// «¿cuánto tengo disponible?» asks the balance; «ahorita tengo 3900,
/// actualízalo» sets it, with no bank named; a purchase, a budget are not it.
#[test]
fn what_one_holds_asked_or_updated_is_the_balance() {
    let asked = only("cuanto tengo disponible?");
    assert_eq!(kind(&asked), "QUERY_DATA");
    assert_eq!(tools(&asked), ["getBankBalance"]);
    let set = only("ya no, ahorita tengo 3900 actualizalo porfa");
    assert_eq!(kind(&set), "SET_BANK_BALANCE");
    assert_eq!(set.params.amount, Param::Given(390_000));
    assert_eq!(
        kind(&only("tengo 3900 de presupuesto para comida")),
        "SET_BUDGET"
    );
    // A figure for something, an obligation, another count: no balance.
    for said in [
        "tengo 3000 disponible para la comida del mes",
        "tengo que actualizar lo de la comida, son 3000",
        "tengo 2 tarjetas, actualiza la de visa a 500",
    ] {
        let actions = idle(said);
        assert!(
            !actions.iter().any(|a| kind(a) == "SET_BANK_BALANCE"),
            "{said}: {actions:?}"
        );
    }
}

/// Everyday words of other countries: a stall's sales «he vendido», the
/// Colombian «droguería», «la uni», meals by «delivery».
#[test]
fn sales_told_and_places_named_in_other_words_are_read() {
    let sold = only(
        "Buenas tardes señorita, hoy en el puesto he vendido mil doscientos cincuenta, anótemelo por favorcito",
    );
    assert_eq!(kind(&sold), "LOG_TRANSACTION");
    assert_eq!(category(&sold), Some("otros_ingresos"));
    assert_eq!(sold.params.amount, Param::Given(125_000));
    assert_eq!(
        category(&only("Quiubo, pagué 180 en la droguería")),
        Some("salud")
    );
    assert_eq!(
        category(&only("gasté 120 en copias y un libro pa la uni")),
        Some("educacion")
    );
    let cap = only("che, no quiero gastar más de 40 lucas por mes en delivery");
    assert_eq!(kind(&cap), "SET_BUDGET");
    assert_eq!(category(&cap), Some("restaurantes"));
    // The delivery of something else is that thing's.
    assert_eq!(
        category(&only("pagué 30 de delivery de la farmacia")),
        Some("salud")
    );
    assert_eq!(
        category(&only("hice el super por delivery, 1200")),
        Some("supermercado")
    );
}

#[test]
fn credit_given_whom_said_first_and_a_cap_wished_are_read() {
    // Sold on credit: owed to the person, by whom.
    let owed = only("la doña Marta se llevo fiado 60 de pan");
    assert_eq!(kind(&owed), "MANAGE_DEBT");
    assert_eq!(owed.params.debt_owed_to_me, Param::Given(true));
    assert_eq!(owed.params.debt_balance, Param::Given(6_000));
    assert_eq!(debt_name(&owed), Some("doña Marta"));
    // Whom one owes, said first and taken up again by «le».
    let mine = only("al proveedor don Efrain le debo 1,200 de la harina");
    assert_eq!(kind(&mine), "MANAGE_DEBT");
    assert_eq!(debt_name(&mine), Some("proveedor don Efrain"));
    assert_ne!(mine.params.debt_owed_to_me, Param::Given(true));
    // A cap wished, with no period.
    let cap = only("quiero gastar no mas de 400 en comer fuera, o sea restaurantes y eso");
    assert_eq!(kind(&cap), "SET_BUDGET");
    // An exam is no school by itself («examen de sangre»).
    assert_ne!(category(&only("examen de sangre 350")), Some("educacion"));
    // Whom, never the words of when («al final»), nor the «le» after it.
    assert_eq!(debt_name(&only("al banco le debo 5000")), Some("banco"));
    assert_eq!(
        debt_name(&only("al final le debo 300 a Juan")),
        Some("Juan")
    );
    // «me quedo debiendo»: unaccented, the person may be the one owing.
    assert_ne!(
        only("me quedo debiendo 300 con el banco")
            .params
            .debt_owed_to_me,
        Param::Given(true)
    );
    // The figure said again is one figure.
    let balance = only("en el banco tengo 22 mil, 22000 justos");
    assert_eq!(kind(&balance), "SET_BANK_BALANCE");
    assert_eq!(balance.params.amount, Param::Given(2_200_000));
}

#[test]
fn a_thing_and_its_figure_said_with_where_it_goes_is_a_new_movement() {
    let new = only("y el internet de la casa 650, eso va en servicios");
    assert_eq!(kind(&new), "LOG_TRANSACTION");
    assert_eq!(category(&new), Some("servicios"));
    // Said as a correction, it is one.
    for corrected in [
        "me equivoqué, 650 eran servicios no comida",
        "corrige: lo del internet 650 va en servicios",
    ] {
        assert_eq!(kind(&only(corrected)), "CORRECT_CATEGORY", "{corrected}");
    }
    // A movement pointed at by «ese último gasto», moved.
    let moved = only("oye mejor cambia ese ultimo gasto a entretenimiento");
    assert_eq!(kind(&moved), "CORRECT_CATEGORY");
    assert_eq!(category(&moved), Some("entretenimiento"));
}

#[test]
fn sales_and_the_till_are_read_and_a_part_left_for_later_is_not() {
    // Money taken from the till to buy groceries goes out; the sale came in.
    let both =
        idle("hoy vendí en la tienda 320 mil y saqué 50 mil de la caja pa mercar pa la casa");
    assert_eq!(both.len(), 2, "{both:?}");
    assert_eq!(category(&both[0]), Some("otros_ingresos"));
    assert_eq!(category(&both[1]), Some("supermercado"));
    assert_eq!(both[1].params.amount, Param::Given(5_000_000));
    // «la venta» is income; what is left «para después» is not read.
    let sale = only("solo anota la venta de 320 mil, lo del mercado lo anoto después");
    assert_eq!(category(&sale), Some("otros_ingresos"));
    assert_eq!(sale.params.amount, Param::Given(32_000_000));
    // Building fees are housing; the slang for money and the verb of noting
    // are no concept.
    assert_eq!(category(&only("pague 540 de condominio")), Some("vivienda"));
    let noted = only("anota 15 lucas");
    assert_eq!(noted.params.amount, Param::Given(1_500_000));
    assert_eq!(noted.params.description, None, "{noted:?}");
}

#[test]
fn what_is_left_to_collect_is_asked_and_a_purchase_put_as_a_condition_is_simulated() {
    let asked = only("cuánto me falta cobrarle a Julio?");
    assert_eq!(kind(&asked), "QUERY_DATA");
    let simulated = only("si me compro unas zapatillas de 95.000 el viernes llego a fin de mes?");
    assert_eq!(kind(&simulated), "SIMULATE_PURCHASE");
    assert_eq!(simulated.params.amount, Param::Given(9_500_000));
    // Said, not asked, it is a purchase made.
    assert_eq!(
        kind(&only("sí me compro los tenis de 2300, ya los pagué")),
        "LOG_TRANSACTION"
    );
}

#[test]
fn a_sale_where_one_buys_is_an_expense_and_a_yearly_figure_asked_is_a_query() {
    for spent in [
        "gasté 150 en la venta de empanadas del colegio",
        "compré una tele en la venta de garaje del vecino por 800",
    ] {
        let action = only(spent);
        assert_ne!(category(&action), Some("otros_ingresos"), "{spent}");
    }
    assert_ne!(
        kind(&only(
            "si me compro algo de 100 cada semana, ¿cuánto gasto al año?"
        )),
        "SIMULATE_PURCHASE"
    );
}

/// A figure in another currency is no amount of this ledger: asked in pesos,
/// never logged at a guessed rate; beside a figure in pesos, the pesos are it.
#[test]
fn a_figure_in_another_currency_is_asked_in_pesos() {
    let a = only("me cobraron 15 dolares de la suscripcion de figma");
    assert_eq!(kind(&a), "LOG_TRANSACTION");
    assert_eq!(a.params.amount, Param::Missing);
    let a = only("tb un trabajito extra de diseño de logo, 150 dólares → 2,710 pesos");
    assert_eq!(a.params.amount, Param::Given(271_000));
    let both = idle("gasté 300 en comida y 50 euros en taxi");
    assert_eq!(both.len(), 2, "{both:?}");
    assert_eq!(both[0].params.amount, Param::Given(30_000));
    assert_eq!(both[1].params.amount, Param::Missing);
}

/// «me fió 12 cajas, le debo 2400»: goods counted by their unit are no money.
#[test]
fn goods_counted_by_their_unit_are_no_amount() {
    let a = only("el de la coca me fio 12 cajas, le debo 2400 pal jueves");
    assert_eq!(kind(&a), "MANAGE_DEBT");
    assert_eq!(a.params.debt_balance, Param::Given(240_000));
    let a = only("compré 3 kilos de carne en 450");
    assert_eq!(a.params.amount, Param::Given(45_000));
}

/// A cap wanted without its figure is set, its amount asked; a doubt («no sé
/// cuánto») asks nothing; «¿me pasé?» asks the budget's status.
#[test]
fn a_cap_wanted_without_its_figure_and_over_the_cap_asked() {
    for message in [
        "Y otro tope para lo del súper, pero no sé todavía cuánto ponerle",
        "quiero ponerle un límite al súper",
    ] {
        let a = only(message);
        assert_eq!(kind(&a), "SET_BUDGET", "{message}");
        assert_eq!(category(&a), Some("supermercado"), "{message}");
        assert_eq!(a.params.amount, Param::Missing, "{message}");
    }
    assert_eq!(kind(&only("uy me pase? cuanto me pase")), "QUERY_DATA");
}
