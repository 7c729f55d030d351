// The longest text the API takes in the link forms' fields (`maxLength` in openapi.yaml's
// `PaymentLinkWrite` and `OpenPaymentLinkCreate`), for a form's character counter;
// `test/unit/client-permissions.test.ts` holds each to the contract.
export const FIELD_LIMITS = {
  title: 50,
  description: 1000,
  reference: 50,
  reference_2: 50,
  phone_no: 20,
  redirect_url: 2048,
} as const;
